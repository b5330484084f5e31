#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None,
//                   SymInt? end=None, SymInt step=1, *, Tensor(a!) out) -> Tensor(a!)
// out = self with self[..., start:end:step, ...] (bounds as Python slices them) replaced by
// src, which has that slice's shape.
Tensor& slice_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& src,
                          int64_t dim, Optional<int64_t> start, Optional<int64_t> end,
                          int64_t step, Tensor& out) {
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && normalize_dim(dim, self.dim(), &d),
                      InvalidArgument, out,
                      "slice_scatter.out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK_MSG(ctx, step > 0, InvalidArgument, out,
                      "slice_scatter.out: step must be positive, got %lld",
                      static_cast<long long>(step));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out) && same_dtype(self, src), InvalidArgument, out,
                      "slice_scatter.out: src and out must have self's dtype %s",
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(src) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);
  const StridedView view = python_slice_view(self, d, start, end, step);
  bool fits = src.dim() == view.rank;
  for (int64_t i = 0; fits && i < view.rank; ++i) {
    fits = src.size(i) == view.sizes[i];
  }
  TL_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, out,
                      "slice_scatter.out: src must have the slice's shape (%lld along dim %lld)",
                      static_cast<long long>(view.sizes[d]), static_cast<long long>(d));

  // Resize
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);

  // Copy self, then src over the slice.
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "slice_scatter.out", W, [&] {
    if (out.data() != self.data() && self.nbytes() > 0) {
      __builtin_memcpy(out.data(), self.data(), self.nbytes());
    }
    strided_write(static_cast<const W*>(src.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
