// exp and the GELU factors on vectors of floats (util/vec.h), without libm: a call per
// element (what the portable kernels make) costs more than the arithmetic around it.
#pragma once

#include "kernels/optimized/util/vec.h"

namespace tailor::optimized {

/// x = exp(x), within 1 ulp of expf for x in [-87.3, 88.3]; below, the smallest normal
/// float (1.2e-38) instead of a denormal or 0; above, 2.4e38 instead of inf. NaN stays NaN.
template <int W>
TL_VEC_INLINE void vec_exp(VecF<W>& x) {
  using F = VecF<W>;
  using I = typename Vec<W>::I;
  const F hi = F{} + 88.37626f;
  const F lo = F{} - 87.33654f;
  // Written so that a NaN, false in every comparison, keeps itself (x < hi ? x : hi
  // turned it into hi: sigmoid's case of NaN found it).
  x = x > hi ? hi : x;
  x = x < lo ? lo : x;
  // n = round(x / ln 2): adding 1.5 * 2^23 rounds to an integer, kept in the low bits.
  const F shifted = x * 1.44269504f + 12582912.0f;
  const F n = shifted - 12582912.0f;
  // r = x - n ln 2 in two steps (ln 2's high part is exact in float), |r| <= ln 2 / 2.
  const F r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  // exp(r) by a degree-7 polynomial (Cephes' expf coefficients).
  F p = F{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n from its exponent bits: n sits in the mantissa of `shifted`.
  I bits;
  __builtin_memcpy(&bits, &shifted, sizeof(bits));
  bits = (bits - 0x4B400000 + 127) << 23;
  F scale;
  __builtin_memcpy(&scale, &bits, sizeof(scale));
  x = p * scale;
}

/// x = GELU(x) = x * Phi(x) with Phi(x) = erfc(-x / sqrt(2)) / 2, erfc by Abramowitz and
/// Stegun 7.1.26 (absolute error under 1.5e-7, taken on the smaller side of Phi so that
/// neither tail loses digits to 1 - erf).
template <int W>
TL_VEC_INLINE void vec_gelu_erf(VecF<W>& x) {
  using F = VecF<W>;
  const F z = (x < 0.0f ? -x : x) * 0.70710678f;  // |x| / sqrt(2)
  const F t = 1.0f / (1.0f + 0.3275911f * z);
  F poly = F{} + 1.061405429f;
  poly = poly * t - 1.453152027f;
  poly = poly * t + 1.421413741f;
  poly = poly * t - 0.284496736f;
  poly = poly * t + 0.254829592f;
  F e = -(z * z);
  vec_exp<W>(e);
  const F half_erfc = 0.5f * poly * t * e;  // Phi(-|x|)
  x = x * (x < 0.0f ? half_erfc : 1.0f - half_erfc);
}

/// x = GELU's tanh form, x / 2 * (1 + tanh(u)) with u = sqrt(2 / pi) (x + 0.044715 x^3),
/// computed as x / (1 + exp(-2u)), which neither overflows nor cancels.
template <int W>
TL_VEC_INLINE void vec_gelu_tanh(VecF<W>& x) {
  VecF<W> e = -1.5957691216f * (x + 0.044715f * x * x * x);  // -2u
  vec_exp<W>(e);
  x = x / (1.0f + e);
}

}  // namespace tailor::optimized
