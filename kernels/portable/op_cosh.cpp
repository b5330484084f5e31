#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// cosh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Hyperbolic cosine (inf past the dtype's range).
// Integer and Bool inputs give a floating out, as in torch.
Tensor& cosh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("cosh.out")>(ctx, "cosh.out", self, out,
      [](auto x) { return math::cosh(x); });
}

}  // namespace tailor::native
