// Plain C++ kernels of the quantized linear (the contract: util/qlinear_kernels.h): the
// fallback of every architecture and the reference of the SIMD ones.
#pragma once

#include <stdint.h>

#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/qlinear_layout.h"
#include "kernels/quantized/util/quantize_row.h"

namespace tailor::quantized {

inline void dynamic_int8_generic(const int8_t* x, int64_t ldx, int rows, int64_t kp,
                                 const int8_t* w, float* acc) {
  for (int r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < kQBlock; ++c) {
      int32_t dot = 0;
      for (int64_t k = 0; k < kp; ++k) dot += int32_t{x[r * ldx + k]} * int8_weight_at(w, k, c);
      acc[r * kQBlock + c] = static_cast<float>(dot);
    }
  }
}

inline void dynamic_int4_generic(const int8_t* x, int64_t ldx, int rows, int64_t k,
                                 const uint8_t* w, int64_t groups, const int32_t* sums,
                                 float* acc) {
  const int64_t size = k / groups;
  for (int r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < kQBlock; ++c) {
      float total = 0.0f;
      for (int64_t g = 0; g < groups; ++g) {
        int32_t dot = -8 * sums[r * groups + g];
        for (int64_t i = g * size; i < (g + 1) * size; ++i) {
          dot += int32_t{x[r * ldx + i]} * int4_nibble_at(w, size, i, c);
        }
        total += static_cast<float>(dot) * int4_scale_at(w, size, g * size, c);
      }
      acc[r * kQBlock + c] = total;
    }
  }
}

inline void float_int8_generic(const float* x, int64_t ldx, int rows, int64_t k,
                               const int8_t* w, float* acc) {
  for (int r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < kQBlock; ++c) {
      float dot = 0.0f;
      for (int64_t i = 0; i < k; ++i) {
        dot += x[r * ldx + i] * static_cast<float>(int8_weight_at(w, i, c));
      }
      acc[r * kQBlock + c] = dot;
    }
  }
}

// No decode or prefill kernels: every call takes the general path (the reference stays
// one loop).
inline constexpr QLinearKernels kQLinearGeneric = {
    "generic",          quantize_row, dynamic_int8_generic, dynamic_int4_generic,
    float_int8_generic, nullptr,      nullptr,              nullptr,
    nullptr,            nullptr,      nullptr,              nullptr};

}  // namespace tailor::quantized
