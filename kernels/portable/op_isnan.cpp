#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// isnan.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Whether each element is NaN (never for integers and Bool), as Bool.
Tensor& isnan_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_predicate_op<TL_SELECTED_DTYPE_MASK("isnan.out")>(
      ctx, "isnan.out", self, out, [](double x) { return x != x; });
}

}  // namespace tailor::native
