#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)
// Tensors of one shape and dtype joined along a new dim `dim` (in [-rank-1, rank]).
Tensor& stack_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  // Validate: every input has the first one's shape and out's dtype.
  TL_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out,
                      "stack.out: expected a non-empty list of tensors");
  const Tensor& first = *tensors[0];
  const int64_t rank = first.dim();
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, rank < int64_t(kMaxDims) && normalize_dim(dim, rank + 1, &d),
                      InvalidArgument, out,
                      "stack.out: dim %lld out of range for %lld-d inputs",
                      static_cast<long long>(dim), static_cast<long long>(rank));
  for (const Tensor* t : tensors) {
    bool match = t->dim() == rank;
    for (int64_t i = 0; match && i < rank; ++i) {
      match = t->size(i) == first.size(i);
    }
    TL_KERNEL_CHECK_MSG(ctx, match, InvalidArgument, out,
                        "stack.out: every input must have the first one's shape");
    TL_KERNEL_CHECK_MSG(ctx, same_dtype(*t, out) && is_default_dim_order(*t), InvalidArgument,
                        out, "stack.out: inputs must be contiguous and of out's dtype %s",
                        scalar_type_name(out.dtype()));
  }
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "stack.out", out.dtype(), out);
  TL_KERNEL_CHECK(ctx, is_default_dim_order(out), InvalidArgument, out);

  // Resize
  int64_t sizes[kMaxDims];
  for (int64_t i = 0, j = 0; i <= rank; ++i) {
    sizes[i] = i == d ? static_cast<int64_t>(tensors.size()) : first.size(j++);
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, rank + 1)) == Error::Ok,
                  InvalidArgument, out);

  // Copy: each outer row of out is every input's row (its dims from d on) in turn.
  int64_t outer = 1;
  for (int64_t i = 0; i < d; ++i) {
    outer *= sizes[i];
  }
  if (out.numel() == 0) {
    return out;
  }
  const size_t row = first.nbytes() / static_cast<size_t>(outer);
  auto* dst = static_cast<uint8_t*>(out.data());
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor* t : tensors) {
      __builtin_memcpy(dst, static_cast<const uint8_t*>(t->data()) + o * row, row);
      dst += row;
    }
  }
  return out;
}

}  // namespace tailor::native
