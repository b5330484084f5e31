#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// logical_and.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// Broadcast; any input dtype (nonzero is true), out written as 0 or 1 in its dtype.
Tensor& logical_and_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return logical_op<TL_SELECTED_DTYPE_MASK("logical_and.out")>(
      ctx, "logical_and.out", self, other, out, [](bool x, bool y) { return x && y; });
}

}  // namespace tailor::native
