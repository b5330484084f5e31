#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {
namespace gelu_detail {

// erf for float with no libm call and no branch, so the GELU loop vectorizes:
// a P(a^2) / Q(a^2) for a = |x| up to 4, a rational least-squares fit made for this kernel
// (max abs error 4.5e-7 against erf, in float arithmetic), then at most 1 (1 - erf(4) <
// 2e-8) and the sign of x. The clamps compare bit patterns, which order like the values
// for non-negative floats: integer compares vectorize where float ones (which may trap)
// would not be if-converted. NaN gives +-1; GELU's factor x keeps the result NaN.
inline float erf_float(float x) {
  uint32_t bits;
  __builtin_memcpy(&bits, &x, sizeof(bits));
  uint32_t a_bits = bits & 0x7fffffffu;
  a_bits = a_bits < 0x40800000u ? a_bits : 0x40800000u;  // min(|x|, 4.0f)
  float a;
  __builtin_memcpy(&a, &a_bits, sizeof(a));
  const float u = a * a;
  const float p = 1.1283791391189815f +
      u * (0.19599752260798203f +
           u * (0.050006420967325417f +
                u * (0.0035204550883902934f +
                     u * (1.3648814430862932e-04f +
                          u * (-1.9127214222655257e-06f + u * 1.9552798525810163e-08f)))));
  const float q = 1.0f + u * (0.50703067373062138f +
                              u * (0.11333289876239767f +
                                   u * (0.013991124683196321f + u * 9.0910147918982958e-04f)));
  const float r = a * p / q;
  uint32_t r_bits;
  __builtin_memcpy(&r_bits, &r, sizeof(r_bits));
  r_bits = r_bits < 0x3f800000u ? r_bits : 0x3f800000u;  // min(r, 1.0f)
  r_bits |= bits & 0x80000000u;                          // the sign of x
  float result;
  __builtin_memcpy(&result, &r_bits, sizeof(result));
  return result;
}

}  // namespace gelu_detail

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
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("gelu.out");
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
        if constexpr (is_same_v<M, float>) {
          return 0.5f * x * (1.0f + gelu_detail::erf_float(x * k_alpha));
        } else {
          return M(0.5) * x * (M(1) + math::erf(x * k_alpha));
        }
      });
    }
  });
  return out;
}

}  // namespace tailor::native
