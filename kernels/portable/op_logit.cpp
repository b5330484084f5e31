#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// logit.out(Tensor self, float? eps=None, *, Tensor(a!) out) -> Tensor(a!)
// out = log(z / (1 - z)) with z = self clamped to [eps, 1 - eps] when eps is given and not
// negative (NaN stays NaN); integer and Bool inputs give a floating out, as in torch.
Tensor& logit_out(KernelContext& ctx, const Tensor& self, Optional<double> eps, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("logit.out", self, float_result_type(self.dtype()), out),
                  InvalidArgument, out);

  // Compute: 16-bit floats in float, rounded once.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("logit.out");
  const Tensor* in[1] = {&self};
  const bool clamp = eps.has_value() && eps.value() >= 0.0;
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "logit.out", T, [&] {
    using M = acc_t<T>;
    const M lo = static_cast<M>(eps.value_or(0.0));
    const M hi = M(1) - lo;
    apply_elementwise<M, T, kMask>(ctx, "logit.out", in, out, [clamp, lo, hi](M x) {
      const M z = clamp ? (x < lo ? lo : (x > hi ? hi : x)) : x;
      return math::log(z / (M(1) - z));
    });
  });
  return out;
}

}  // namespace tailor::native
