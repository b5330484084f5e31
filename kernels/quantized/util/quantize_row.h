// Per-token int8 quantization of one activation row, as the 8da schemes do at run time.
// The float32 steps are those of exporter/quantize/activations.py, in the same order, so
// the runtime and torch eager choose the same integers:
//
//   lo = min(min(row), 0), hi = max(max(row), 0), scale = (hi - lo) / 255 (1 if 0)
//   zero_point = clamp(round(-128 - lo / scale), -128, 127)
//   q = clamp(round(x * (1 / scale)) + zero_point, -128, 127)
//
// The kernels keep q - zero_point (in [-255, 255]) as int16: the zero point is then
// already subtracted, and int16 x int16 products sum into int32 without saturating.
#pragma once

#include <math.h>
#include <stdint.h>

namespace tailor::quantized {

struct TokenQParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

inline float clamp_float(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

inline TokenQParams token_qparams(const float* x, int64_t k) {
  float lo = 0.0f;
  float hi = 0.0f;
  for (int64_t i = 0; i < k; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  TokenQParams p;
  const float scale = (hi - lo) / 255.0f;
  p.scale = scale > 0.0f ? scale : 1.0f;
  p.zero_point = static_cast<int32_t>(clamp_float(nearbyintf(-128.0f - lo / p.scale), -128, 127));
  return p;
}

// out[i] = q(x[i]) - zero_point for i < k.
inline void quantize_row_centered(const float* x, int64_t k, TokenQParams p, int16_t* out) {
  const float inverse = 1.0f / p.scale;
  const float zp = static_cast<float>(p.zero_point);
  for (int64_t i = 0; i < k; ++i) {
    const float q = clamp_float(nearbyintf(x[i] * inverse) + zp, -128.0f, 127.0f);
    out[i] = static_cast<int16_t>(static_cast<int32_t>(q) - p.zero_point);
  }
}

}  // namespace tailor::quantized
