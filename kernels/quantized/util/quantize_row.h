// Per-token int8 quantization of one activation row, as the 8da schemes do at run time.
// The float32 steps are those of exporter/quantize/activations.py, in the same order, so
// the runtime and torch eager choose the same integers:
//
//   scale = max|row| / 127 (1 if 0),   q = clamp(round(x * (1 / scale)), -127, 127)
//
// Symmetric: with no zero point, the kernels' int8 products need no correction by the
// weights' sums. The range stops at -127 so that vpsignb never has to negate -128.
#pragma once

#include <stdint.h>

namespace tailor::quantized {

// The largest |x| over x[0, k).
inline float abs_max(const float* x, int64_t k) {
  float amax = 0.0f;
  for (int64_t i = 0; i < k; ++i) {
    const float a = __builtin_fabsf(x[i]);
    amax = a > amax ? a : amax;
  }
  return amax;
}

// The scale of values whose largest magnitude is amax.
inline float quantize_scale(float amax) {
  const float scale = amax / 127.0f;
  return scale > 0.0f ? scale : 1.0f;
}

// One value, with inverse = 1 / its scale.
inline int8_t quantize_value(float x, float inverse) {
  float q = __builtin_nearbyintf(x * inverse);
  q = q < -127.0f ? -127.0f : (q > 127.0f ? 127.0f : q);
  return static_cast<int8_t>(q);
}

// Quantizes x[0, k) into out[0, k), zeroes out[k, k_padded), returns the scale.
inline float quantize_row(const float* x, int64_t k, int64_t k_padded, int8_t* out) {
  const float scale = quantize_scale(abs_max(x, k));
  const float inverse = 1.0f / scale;
  for (int64_t i = 0; i < k; ++i) out[i] = quantize_value(x[i], inverse);
  for (int64_t i = k; i < k_padded; ++i) out[i] = 0;
  return scale;
}

// sums[g] = sum of q over group g (groups of `size`): the int4 kernels subtract 8 x this,
// because they multiply by the weights' stored nibbles, which are the values plus 8.
inline void group_sums(const int8_t* q, int64_t groups, int64_t size, int32_t* sums) {
  for (int64_t g = 0; g < groups; ++g) {
    int32_t s = 0;
    for (int64_t i = g * size; i < (g + 1) * size; ++i) s += q[i];
    sums[g] = s;
  }
}

// sums[s] = sum of q over [s * size, min(k, (s + 1) * size)): the int8 prefill GEMM's
// spans, whose last may be short.
inline void span_sums(const int8_t* q, int64_t k, int64_t size, int32_t* sums) {
  for (int64_t s = 0; s * size < k; ++s) {
    const int64_t end = (s + 1) * size < k ? (s + 1) * size : k;
    int32_t total = 0;
    for (int64_t i = s * size; i < end; ++i) total += q[i];
    sums[s] = total;
  }
}

}  // namespace tailor::quantized
