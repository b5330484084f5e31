#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) -> Tensor(a!)
// out.size(i) = self.size(dims[i]); elements are copied, never aliased.
Tensor& permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims,
                         Tensor& out) {
  // Validate: dims must be a permutation of [0, rank).
  const int64_t rank = self.dim();
  TL_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(dims.size()) == rank, InvalidArgument, out,
                      "permute_copy.out: dims has %zu entries for a %lld-d tensor",
                      dims.size(), static_cast<long long>(rank));
  int64_t perm[kMaxDims];
  bool seen[kMaxDims] = {};
  for (int64_t i = 0; i < rank; ++i) {
    TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dims[i], rank, &perm[i]) && !seen[perm[i]],
                        InvalidArgument, out, "permute_copy.out: dims is not a permutation");
    seen[perm[i]] = true;
  }
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  const StridedView in = contiguous_view(self);
  StridedView view;
  view.rank = rank;
  for (int64_t i = 0; i < rank; ++i) {
    view.sizes[i] = in.sizes[perm[i]];
    view.strides[i] = in.strides[perm[i]];
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(view.sizes, rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "permute_copy.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
