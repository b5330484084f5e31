#include "kernels/portable/util/extreme.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
//             Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)
// The largest element along `dim` and its index (Long): the first of equal ones, the
// first NaN if any (torch's rule).
void max_dim_max(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                 Tensor& max, Tensor& max_values) {
  extreme_along_dim<true, TL_SELECTED_DTYPE_MASK("max.dim_max")>(ctx, "max.dim_max", self, dim,
                                                                  keepdim, max, max_values);
}

// max.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// The largest element of a non-empty tensor (NaN if any), 0-d.
Tensor& max_unary_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return extreme_of_all<true, TL_SELECTED_DTYPE_MASK("max.unary_out")>(ctx, "max.unary_out",
                                                                       self, out);
}

}  // namespace tailor::native
