#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// sinh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Hyperbolic sine (+-inf past the dtype's range).
// Integer and Bool inputs give a floating out, as in torch.
Tensor& sinh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("sinh.out")>(ctx, "sinh.out", self, out,
      [](auto x) { return math::sinh(x); });
}

}  // namespace tailor::native
