#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False,
//            Tensor(a!) out) -> Tensor(a!)
// out[..., i, ...] = self[..., index[..., i, ...], ...] along `dim`: out has index's shape,
// and index (Long or Int, as torch takes; each in [0, size)) has self's rank and no larger
// size in the other dims. An empty index may have any dtype and shape: torch checks none.
Tensor& gather_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                   bool sparse_grad, Tensor& out) {
  (void)sparse_grad;  // a gradient layout hint: nothing to do at inference
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "gather.out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  const bool wide = index.dtype() == ScalarType::Long;
  TL_KERNEL_CHECK_MSG(ctx, wide || index.dtype() == ScalarType::Int || index.numel() == 0,
                      InvalidArgument, out, "gather.out: index must be Long or Int, got %s",
                      scalar_type_name(index.dtype()));
  if (index.numel() == 0) {  // torch checks neither rank nor sizes: an empty result
    TL_KERNEL_CHECK(ctx, same_dtype(self, out) && resize_like(out, index) == Error::Ok,
                    InvalidArgument, out);
    return out;
  }
  const int64_t rank = self.dim() > 0 ? self.dim() : 1;
  const int64_t index_rank = index.dim() > 0 ? index.dim() : 1;
  TL_KERNEL_CHECK_MSG(ctx, rank <= static_cast<int64_t>(kMaxDims), InvalidArgument, out,
                      "gather.out: %lld dims; at most %lld", static_cast<long long>(rank),
                      static_cast<long long>(kMaxDims));
  TL_KERNEL_CHECK_MSG(ctx, rank == index_rank, InvalidArgument, out,
                      "gather.out: index has %lld dims, self %lld",
                      static_cast<long long>(index.dim()), static_cast<long long>(self.dim()));
  for (int64_t i = 0; i < self.dim() && index.dim() > 0; ++i) {
    TL_KERNEL_CHECK_MSG(ctx, i == d || index.size(i) <= self.size(i), InvalidArgument, out,
                        "gather.out: index size %lld in dim %lld exceeds self's %lld",
                        static_cast<long long>(index.size(i)), static_cast<long long>(i),
                        static_cast<long long>(self.size(i)));
  }
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && is_default_dim_order(self) &&
                      is_default_dim_order(index) && is_default_dim_order(out),
                  InvalidArgument, out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "gather.out", self.dtype(), out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_like(out, index) == Error::Ok, InvalidArgument, out);

  // Copy one element per index entry, walking index's positions in order.
  const int64_t n = index.numel();
  if (n == 0) {
    return out;
  }
  int64_t self_strides[kMaxDims];
  int64_t stride = 1;
  for (int64_t i = self.dim() - 1; i >= 0; --i) {
    self_strides[i] = stride;
    stride *= self.size(i);
  }
  const int64_t self_size = self.dim() > 0 ? self.size(d) : 1;
  const size_t width = self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  const int64_t* at64 = wide ? index.const_data<int64_t>() : nullptr;
  const int32_t* at32 = wide ? nullptr : index.const_data<int32_t>();
  int64_t position[kMaxDims] = {};
  for (int64_t k = 0; k < n; ++k) {
    const int64_t pick = wide ? at64[k] : at32[k];
    TL_KERNEL_CHECK_MSG(ctx, pick >= 0 && pick < self_size, InvalidArgument, out,
                        "gather.out: index %lld out of range for size %lld",
                        static_cast<long long>(pick), static_cast<long long>(self_size));
    int64_t offset = 0;
    for (int64_t i = 0; i < index.dim(); ++i) {
      offset += (i == d ? pick : position[i]) * self_strides[i];
    }
    if (index.dim() == 0 && self.dim() > 0) {  // a 0-d index of a 1-d self
      offset = pick;
    }
    __builtin_memcpy(dst + k * width, src + offset * width, width);
    for (int64_t i = index.dim() - 1; i >= 0; --i) {  // next position of index, row-major
      if (++position[i] < index.size(i)) {
        break;
      }
      position[i] = 0;
    }
  }
  return out;
}

}  // namespace tailor::native
