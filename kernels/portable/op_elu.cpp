#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *,
//         Tensor(a!) out) -> Tensor(a!)
// out = self > 0 ? scale * self : alpha * scale * (e^(input_scale * self) - 1), on floating
// tensors (as torch's CPU). F.selu exports as elu with its constants.
Tensor& elu_out(KernelContext& ctx, const Tensor& self, const Scalar& alpha, const Scalar& scale,
                const Scalar& input_scale, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("elu.out", self, self.dtype(), out), InvalidArgument,
                  out);
  TL_KERNEL_CHECK_MSG(ctx, is_floating_type(self.dtype()), InvalidArgument, out,
                      "elu.out: self must be floating, got %s", scalar_type_name(self.dtype()));

  // Compute: 16-bit floats in float, rounded once; expm1 keeps small negative inputs exact.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("elu.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "elu.out", T, [&] {
    using M = acc_t<T>;
    const M pos_coef = scale.to<M>();
    const M neg_coef = static_cast<M>(alpha.to<M>() * pos_coef);
    const M in_coef = input_scale.to<M>();
    apply_elementwise<M, T, kMask>(ctx, "elu.out", in, out, [=](M x) {
      return x <= M(0) ? math::expm1(x * in_coef) * neg_coef : x * pos_coef;
    });
  });
  return out;
}

}  // namespace tailor::native
