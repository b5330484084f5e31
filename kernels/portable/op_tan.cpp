#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// tan.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Tangent (of radians).
// Integer and Bool inputs give a floating out, as in torch.
Tensor& tan_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("tan.out")>(ctx, "tan.out", self, out,
      [](auto x) { return math::tan(x); });
}

}  // namespace tailor::native
