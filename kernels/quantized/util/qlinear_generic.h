// Plain C++ dot kernels of the quantized linear (the contract: util/qlinear_kernels.h):
// the fallback of every architecture and the reference of the SIMD ones.
#pragma once

#include <stdint.h>

#include "kernels/quantized/util/int4.h"
#include "kernels/quantized/util/qlinear_kernels.h"

namespace tailor::quantized {

inline void dot_dynamic_int8_generic(const int16_t* x, int rows, int64_t k, const int8_t* w,
                                     const float* scales, int64_t groups, float* acc) {
  const int64_t size = k / groups;
  for (int r = 0; r < rows; ++r) {
    const int16_t* xr = x + r * k;
    float sum = 0.0f;
    for (int64_t g = 0; g < groups; ++g) {
      int32_t dot = 0;
      for (int64_t i = g * size; i < (g + 1) * size; ++i) dot += int32_t{xr[i]} * w[i];
      sum += static_cast<float>(dot) * scales[g];
    }
    acc[r] = sum;
  }
}

inline void dot_dynamic_int4_generic(const int16_t* x, int rows, int64_t k, const uint8_t* w,
                                     const float* scales, int64_t groups, float* acc) {
  const int64_t size = k / groups;
  for (int r = 0; r < rows; ++r) {
    const int16_t* xr = x + r * k;
    float sum = 0.0f;
    for (int64_t g = 0; g < groups; ++g) {
      int32_t dot = 0;
      for (int64_t i = g * size; i < (g + 1) * size; ++i) dot += int32_t{xr[i]} * int4_at(w, i);
      sum += static_cast<float>(dot) * scales[g];
    }
    acc[r] = sum;
  }
}

inline void dot_float_int8_generic(const float* x, int64_t ldx, int rows, int64_t k,
                                   const int8_t* w, const float* scales, int64_t groups,
                                   float* acc) {
  const int64_t size = k / groups;
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    float sum = 0.0f;
    for (int64_t g = 0; g < groups; ++g) {
      float dot = 0.0f;
      for (int64_t i = g * size; i < (g + 1) * size; ++i) dot += xr[i] * static_cast<float>(w[i]);
      sum += dot * scales[g];
    }
    acc[r] = sum;
  }
}

inline constexpr QLinearKernels kQLinearGeneric = {"generic", dot_dynamic_int8_generic,
                                                   dot_dynamic_int4_generic,
                                                   dot_float_int8_generic};

}  // namespace tailor::quantized
