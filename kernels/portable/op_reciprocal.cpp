#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// reciprocal.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// 1 / self: +-inf at +-0. Integer and Bool inputs give a floating out, as in torch.
Tensor& reciprocal_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_float_op<TL_SELECTED_DTYPE_MASK("reciprocal.out")>(
      ctx, "reciprocal.out", self, out, [](auto x) { return decltype(x)(1) / x; });
}

}  // namespace tailor::native
