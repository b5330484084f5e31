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

  // Resize, copy self, then src over the slice.
  scatter_into_view<TL_SELECTED_DTYPE_MASK("slice_scatter.out")>(
      ctx, "slice_scatter.out", self, src, python_slice_view(self, d, start, end, step),
      "the slice's shape", out);
  return out;
}

}  // namespace tailor::native
