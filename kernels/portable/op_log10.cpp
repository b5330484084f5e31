#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// log10.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Base-10 logarithm; -inf at 0, NaN below.
// Integer and Bool inputs give a floating out, as in torch.
Tensor& log10_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("log10.out")>(ctx, "log10.out", self, out,
      [](auto x) { return math::log10(x); });
}

}  // namespace tailor::native
