#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// isinf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Whether each element is +inf or -inf (never for integers and Bool), as Bool.
Tensor& isinf_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_predicate_op<TL_SELECTED_DTYPE_MASK("isinf.out")>(
      ctx, "isinf.out", self, out, [](double x) { return __builtin_isinf(x) != 0; });
}

}  // namespace tailor::native
