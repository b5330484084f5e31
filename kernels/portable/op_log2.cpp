#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// log2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Base-2 logarithm; -inf at 0, NaN below.
// Integer and Bool inputs give a floating out, as in torch.
Tensor& log2_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("log2.out")>(ctx, "log2.out", self, out,
      [](auto x) { return math::log2(x); });
}

}  // namespace tailor::native
