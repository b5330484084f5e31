#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// ceil.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// The smallest integral value not below self, in self's dtype (integers unchanged; no Bool).
Tensor& ceil_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_op<TL_SELECTED_DTYPE_MASK("ceil.out")>(ctx, "ceil.out", self, out,
      [](auto x) { return math::ceil(x); });
}

}  // namespace tailor::native
