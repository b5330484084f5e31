#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// trunc.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// self rounded toward zero, in self's dtype (integers unchanged; no Bool).
Tensor& trunc_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_op<TL_SELECTED_DTYPE_MASK("trunc.out")>(ctx, "trunc.out", self, out,
      [](auto x) { return math::trunc(x); });
}

}  // namespace tailor::native
