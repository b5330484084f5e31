#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// floor.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// The largest integral value not above self, in self's dtype (integers unchanged; no Bool).
Tensor& floor_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_op<TL_SELECTED_DTYPE_MASK("floor.out")>(ctx, "floor.out", self, out,
      [](auto x) { return math::floor(x); });
}

}  // namespace tailor::native
