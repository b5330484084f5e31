

#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out) -> Tensor(a!)
// "none": x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2)));
// "tanh": x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
Tensor& gelu_out(KernelContext& ctx, const Tensor& self, const char* approximate,
                 Tensor& out) {
  // Validate
  const bool use_tanh = string_equal(approximate, "tanh");
  TL_KERNEL_CHECK_MSG(ctx, use_tanh || string_equal(approximate, "none"), InvalidArgument, out,
                      "gelu.out: approximate must be 'none' or 'tanh'");
  TL_KERNEL_CHECK(ctx, check_unary_out("gelu.out", self, self.dtype(), out), InvalidArgument,
                  out);
  TL_KERNEL_CHECK_MSG(ctx, is_floating_type(self.dtype()), InvalidArgument, out,
                      "gelu.out: self must be floating");

  // Compute: 16-bit floats in float.
  constexpr uint32_t kMask = selected_dtype_mask("gelu.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "gelu.out", T, [&] {
    using M = acc_t<T>;
    if (use_tanh) {
      const M k_beta = static_cast<M>(0.7978845608028654);  // sqrt(2 / pi)
      const M k_kappa = static_cast<M>(0.044715);
      apply_elementwise<M, T, kMask>(ctx, "gelu.out", in, out, [=](M x) {
        return M(0.5) * x * (M(1) + math::tanh(k_beta * (x + k_kappa * x * x * x)));
      });
    } else {
      const M k_alpha = static_cast<M>(0.7071067811865476);  // 1 / sqrt(2)
      apply_elementwise<M, T, kMask>(ctx, "gelu.out", in, out, [=](M x) {
        return M(0.5) * x * (M(1) + math::erf(x * k_alpha));
      });
    }
  });
  return out;
}

}  // namespace tailor::native
