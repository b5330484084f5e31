#include "kernels/portable/util/extreme.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min,
//             Tensor(b!) min_indices) -> (Tensor(a!) values, Tensor(b!) indices)
// The smallest element along `dim` and its index (Long): the first of equal ones, the
// first NaN if any (torch's rule).
void min_dim_min(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                 Tensor& min, Tensor& min_indices) {
  extreme_along_dim<false, TL_SELECTED_DTYPE_MASK("min.dim_min")>(ctx, "min.dim_min", self, dim,
                                                                   keepdim, min, min_indices);
}

// min.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// The smallest element of a non-empty tensor (NaN if any), 0-d.
Tensor& min_unary_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return extreme_of_all<false, TL_SELECTED_DTYPE_MASK("min.unary_out")>(ctx, "min.unary_out",
                                                                        self, out);
}

}  // namespace tailor::native
