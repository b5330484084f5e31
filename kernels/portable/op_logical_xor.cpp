#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// logical_xor.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// Broadcast; any input dtype (nonzero is true), out written as 0 or 1 in its dtype.
Tensor& logical_xor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return logical_op<TL_SELECTED_DTYPE_MASK("logical_xor.out")>(
      ctx, "logical_xor.out", self, other, out, [](bool x, bool y) { return x != y; });
}

}  // namespace tailor::native
