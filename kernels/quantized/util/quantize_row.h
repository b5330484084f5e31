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

// The sum of q[0, n): 16 at a time in a fixed-length loop, which the compiler runs on
// vectors (a prefill quantizes and sums every input row).
inline int32_t sum_int8(const int8_t* q, int64_t n) {
  int32_t total = 0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    int32_t block = 0;
    for (int j = 0; j < 16; ++j) block += q[i + j];
    total += block;
  }
  for (; i < n; ++i) total += q[i];
  return total;
}

// sums[g] = sum of q over group g (groups of `size`): the int4 kernels subtract 8 x this,
// because they multiply by the weights' stored nibbles, which are the values plus 8.
inline void group_sums(const int8_t* q, int64_t groups, int64_t size, int32_t* sums) {
  for (int64_t g = 0; g < groups; ++g) sums[g] = sum_int8(q + g * size, size);
}

// sums[s] = sum of q over [s * size, min(k, (s + 1) * size)): the int8 prefill GEMM's
// spans, whose last may be short.
inline void span_sums(const int8_t* q, int64_t k, int64_t size, int32_t* sums) {
  for (int64_t s = 0; s * size < k; ++s) {
    sums[s] = sum_int8(q + s * size, ((s + 1) * size < k ? (s + 1) * size : k) - s * size);
  }
}

}  // namespace tailor::quantized
