#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// acos.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Arc cosine in radians, in [0, pi]; NaN outside [-1, 1].
// Integer and Bool inputs give a floating out, as in torch.
Tensor& acos_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("acos.out")>(ctx, "acos.out", self, out,
      [](auto x) { return math::acos(x); });
}

}  // namespace tailor::native
