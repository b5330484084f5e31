#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// sign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// -1, 0 or 1 in self's dtype (NaN and -0.0 give 0, as in torch); Bool is unchanged.
Tensor& sign_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return unary_op<DtypeSet::All, TL_SELECTED_DTYPE_MASK("sign.out")>(
      ctx, "sign.out", self, self.dtype(), out, [](auto x) {
        using M = decltype(x);
        if constexpr (is_same_v<M, bool>) {
          return x;
        } else {
          return static_cast<M>((M(0) < x) - (x < M(0)));
        }
      });
}

}  // namespace tailor::native
