#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// asinh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Inverse hyperbolic sine.
// Integer and Bool inputs give a floating out, as in torch.
Tensor& asinh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("asinh.out")>(ctx, "asinh.out", self, out,
      [](auto x) { return math::asinh(x); });
}

}  // namespace tailor::native
