#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = self with self[..., index, ...] (index in dim `dim`, negative from the end)
// replaced by src, which has that selection's shape (self's without dim `dim`): one copy
// of self, then src written over the selected slice.
Tensor& select_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& src,
                           int64_t dim, int64_t index, Tensor& out) {
  // Validate
  int64_t d = 0;
  int64_t at = 0;
  if (!select_position(ctx, "select_scatter.out", self, dim, index, &d, &at)) return out;
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out) && same_dtype(self, src), InvalidArgument, out,
                      "select_scatter.out: src and out must have self's dtype %s",
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(src) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize, copy self, then src over the selection.
  scatter_into_view<TL_SELECTED_DTYPE_MASK("select_scatter.out")>(
      ctx, "select_scatter.out", self, src, select_view(self, d, at),
      "self's shape without dim `dim`", out);
  return out;
}

}  // namespace tailor::native
