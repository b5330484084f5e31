#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// acosh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Inverse hyperbolic cosine; NaN below 1.
// Integer and Bool inputs give a floating out, as in torch.
Tensor& acosh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("acosh.out")>(ctx, "acosh.out", self, out,
      [](auto x) { return math::acosh(x); });
}

}  // namespace tailor::native
