#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// atan.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Arc tangent in radians, in (-pi/2, pi/2).
// Integer and Bool inputs give a floating out, as in torch.
Tensor& atan_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("atan.out")>(ctx, "atan.out", self, out,
      [](auto x) { return math::atan(x); });
}

}  // namespace tailor::native
