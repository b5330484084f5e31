#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// atanh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Inverse hyperbolic tangent; +-inf at +-1, NaN outside [-1, 1].
// Integer and Bool inputs give a floating out, as in torch.
Tensor& atanh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("atanh.out")>(ctx, "atanh.out", self, out,
      [](auto x) { return math::atanh(x); });
}

}  // namespace tailor::native
