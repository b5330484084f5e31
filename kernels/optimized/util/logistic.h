// The logistic function of n contiguous floats by vectors, for the optimized sigmoid
// (op_sigmoid.cpp) and SiLU (op_silu.cpp, x times it): e^-x by vec_exp (a libm call per
// element is most of portable's time: SiLU's sigmoid took 10% of the Llama forward); the
// ragged end through one padded vector.
#pragma once

#include "kernels/optimized/util/vec.h"
#include "kernels/optimized/util/vec_math.h"

namespace tailor::optimized {

// Above this, expf overflows to inf (vec_exp's upper bound).
inline constexpr float kExpOverflow = 88.37626f;

// out = 1 / (1 + e^-in), or in / (1 + e^-in) when kTimesInput.
template <bool kTimesInput>
struct LogisticSpan {
  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, int64_t n) {
    for (int64_t i = 0; i < n; i += W) {
      VecF<W> x;
      if (i + W <= n) {
        vec_load<W>(in + i, x);
      } else {
        vec_load_partial<W>(in + i, n - i, 0.0f, x);
      }
      VecF<W> e = -x;
      vec_exp<W>(e);
      // vec_exp stops at 2.4e38: past it e^-x is inf, so that sigmoid gives 0 and SiLU -0
      // (NaN at -inf), as torch, not x / 2.4e38 (-1.41 for the lowest float).
      e = -x > kExpOverflow ? VecF<W>{} + __builtin_inff() : e;
      const VecF<W> y = (kTimesInput ? x : VecF<W>{} + 1.0f) / (1.0f + e);
      if (i + W <= n) {
        vec_store<W>(out + i, y);
      } else {
        vec_store_partial<W>(out + i, n - i, y);
      }
    }
  }
};

}  // namespace tailor::optimized
