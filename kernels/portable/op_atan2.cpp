#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// The angle of the point (other, self) in radians, in [-pi, pi], broadcast; integer and
// Bool inputs give a floating out, as in torch.
Tensor& atan2_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return binary_op<DtypeSet::Float, TL_SELECTED_DTYPE_MASK("atan2.out")>(
      ctx, "atan2.out", self, other, out, [](auto y, auto x) { return math::atan2(y, x); });
}

}  // namespace tailor::native
