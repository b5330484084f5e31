#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1,
//               bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out)
//     -> Tensor(a!)
// out[..., :] = weight[indices[...], :]. padding_idx, scale_grad_by_freq and sparse only
// change the gradient, so the forward pass ignores them.
Tensor& embedding_out(KernelContext& ctx, const Tensor& weight, const Tensor& indices,
                      int64_t padding_idx, bool scale_grad_by_freq, bool sparse,
                      Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, weight.dim() == 2, InvalidArgument, out,
                      "embedding.out: weight must be 2-d, got %lld dims",
                      static_cast<long long>(weight.dim()));
  TL_KERNEL_CHECK_MSG(ctx, is_index_dtype(indices.dtype()), InvalidArgument, out,
                      "embedding.out: indices must be Int or Long, got %s",
                      scalar_type_name(indices.dtype()));
  TL_KERNEL_CHECK_MSG(ctx, indices.dim() + 1 <= int64_t(kMaxDims), InvalidArgument, out,
                      "embedding.out: indices have too many dims");
  TL_KERNEL_CHECK(ctx,
                  same_dtype(weight, out) && is_default_dim_order(weight) &&
                      is_default_dim_order(indices) && is_default_dim_order(out),
                  InvalidArgument, out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "embedding.out", weight.dtype(), out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "embedding.out", indices.dtype(), out);

  // Resize: indices' shape plus the embedding dim.
  int64_t sizes[kMaxDims];
  for (int64_t d = 0; d < indices.dim(); ++d) {
    sizes[d] = indices.size(d);
  }
  sizes[indices.dim()] = weight.size(1);
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, indices.dim() + 1)) == Error::Ok,
                  InvalidArgument, out);

  // Copy one row per index.
  const int64_t rows = weight.size(0);
  const size_t row_bytes = static_cast<size_t>(weight.size(1)) * weight.element_size();
  const auto* src = static_cast<const uint8_t*>(weight.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  for (size_t i = 0; i < indices.numel(); ++i) {
    const int64_t row = index_value(indices, i);
    TL_KERNEL_CHECK_MSG(ctx, row >= 0 && row < rows, InvalidArgument, out,
                        "embedding.out: index %lld out of range for %lld rows",
                        static_cast<long long>(row), static_cast<long long>(rows));
    __builtin_memcpy(dst + i * row_bytes, src + row * row_bytes, row_bytes);
  }
  return out;
}

}  // namespace tailor::native
