#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// asin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Arc sine in radians, in [-pi/2, pi/2]; NaN outside [-1, 1].
// Integer and Bool inputs give a floating out, as in torch.
Tensor& asin_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("asin.out")>(ctx, "asin.out", self, out,
      [](auto x) { return math::asin(x); });
}

}  // namespace tailor::native
