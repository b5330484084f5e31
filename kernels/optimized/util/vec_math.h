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

/// x = GELU(x) = x / 2 * (1 + erf(x / sqrt(2))), as h + |h| erf(|x| / sqrt(2)) with h = x / 2
/// (no sign to select, and no overflow near the float range's end). erf(z) = z P(u) / Q(u),
/// u = (z / 4)^2 for z < 4, and 1 from 4 on (where it rounds to 1): P of degree 6, Q of 5, a
/// least-squares fit of erf weighted toward its largest errors (Lawson's iteration) on
/// Chebyshev points of [0, 4]; erf within 2.4e-9 in exact arithmetic, 4.1e-7 in these
/// float steps. GELU then differs from the exact one by at most 1.0e-6 on [-10, 10] (1.4e-6
/// without FMA; torch's float kernel: 3.8e-7). Without exp's polynomial and clamps it takes
/// 22 vector operations where erfc by exp took 45: GELU ran 1.6 times as fast (AVX2).
template <int W>
TL_VEC_INLINE void vec_gelu_erf(VecF<W>& x) {
  using F = VecF<W>;
  using I = typename Vec<W>::I;
  const F h = x * 0.5f;
  I bits;
  __builtin_memcpy(&bits, &h, sizeof(bits));
  bits &= 0x7fffffff;
  F half_abs;  // |x| / 2
  __builtin_memcpy(&half_abs, &bits, sizeof(half_abs));
  F z = half_abs * 1.41421356f;  // |x| / sqrt(2)
  const auto past = z > 4.0f;      // erf is 1 (a NaN stays NaN: false here)
  z = past ? 4.0f : z;
  const F v = z * 0.25f;
  const F u = v * v;
  F p = F{} - 0.22018182f;
  p = p * u + 4.8967986f;
  p = p * u + 24.832596f;
  p = p * u + 15.743917f;
  p = p * u + 13.898493f;
  p = p * u + 2.9617548f;
  p = p * u + 1.1283792f;
  F q = F{} + 66.022186f;
  q = q * u + 85.549675f;
  q = q * u + 63.276676f;
  q = q * u + 29.160372f;
  q = q * u + 7.9581218f;
  q = q * u + 1.0f;
  const F erf = past ? 1.0f : z * p / q;  // exactly 1: -3e38 gives 0, not -9e30
  x = half_abs * erf + h;
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
