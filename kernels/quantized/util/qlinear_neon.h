// aarch64 kernels of the quantized linear (contract: util/qlinear_kernels.h; weight layout:
// util/qlinear_layout.h). NEON is part of the aarch64 baseline, so these need no run-time
// check. Where the compiler targets the dot-product extension (__ARM_FEATURE_DOTPROD, e.g.
// -march=armv8.2-a+dotprod), sdot adds the four s8 x s8 products of each 32-bit lane into
// it; otherwise smull + pairwise adds do the same in two steps (pairs of products fit
// int16: at most 2 x 127 x 127). One 32-byte group of the layout is two q registers:
// rows 0-3 and rows 4-7, each lane 4 inputs of one row, so every lane ends as one output.
// Input quantization stays quantize_row() (the same integers as eager, and O(K) per row).
#pragma once

#if defined(__aarch64__)

#include <arm_neon.h>

#include "kernels/quantized/util/qlinear_generic.h"
#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/qlinear_layout.h"

namespace tailor::quantized {

// Four consecutive int8 inputs, in every 32-bit lane.
inline int8x16_t qlinear_broadcast4_neon(const int8_t* x) {
  int32_t v;
  __builtin_memcpy(&v, x, 4);
  return vreinterpretq_s8_s32(vdupq_n_s32(v));
}

// acc[lane j] += sum of the 4 products in lane j of w and x.
inline int32x4_t qlinear_dot4(int32x4_t acc, int8x16_t w, int8x16_t x) {
#if defined(__ARM_FEATURE_DOTPROD)
  return vdotq_s32(acc, w, x);
#else
  const int16x8_t low = vmull_s8(vget_low_s8(w), vget_low_s8(x));     // lanes 0, 1
  const int16x8_t high = vmull_s8(vget_high_s8(w), vget_high_s8(x));  // lanes 2, 3
  return vpadalq_s16(acc, vpaddq_s16(low, high));
#endif
}

template <int R>
void dynamic_int8_neon_rows(const int8_t* x, int64_t ldx, int64_t kp, const int8_t* w,
                            float* acc) {
  int32x4_t sum[R][2];
  for (int r = 0; r < R; ++r) sum[r][0] = sum[r][1] = vdupq_n_s32(0);
  for (int64_t k = 0; k < kp; k += 4, w += 32) {
    const int8x16_t w0 = vld1q_s8(w);
    const int8x16_t w1 = vld1q_s8(w + 16);
    for (int r = 0; r < R; ++r) {
      const int8x16_t xb = qlinear_broadcast4_neon(x + r * ldx + k);
      sum[r][0] = qlinear_dot4(sum[r][0], w0, xb);
      sum[r][1] = qlinear_dot4(sum[r][1], w1, xb);
    }
  }
  for (int r = 0; r < R; ++r) {
    vst1q_f32(acc + r * kQBlock, vcvtq_f32_s32(sum[r][0]));
    vst1q_f32(acc + r * kQBlock + 4, vcvtq_f32_s32(sum[r][1]));
  }
}

template <int R>
void dynamic_int4_neon_rows(const int8_t* x, int64_t ldx, int64_t k, const uint8_t* w,
                            int64_t groups, const int32_t* sums, float* acc) {
  const int64_t size = k / groups;
  const int64_t group_bytes = int4_group_bytes(size);
  const uint8x16_t low = vdupq_n_u8(0x0F);
  float32x4_t total[R][2];
  for (int r = 0; r < R; ++r) total[r][0] = total[r][1] = vdupq_n_f32(0.0f);
  for (int64_t g = 0; g < groups; ++g) {
    int32x4_t sum[R][2];
    for (int r = 0; r < R; ++r) sum[r][0] = sum[r][1] = vdupq_n_s32(0);
    const uint8_t* wg = w + g * group_bytes;
    for (int64_t i = g * size; i < (g + 1) * size; i += 8) {
      const uint8x16_t v0 = vld1q_u8(wg + (i - g * size) * 4);
      const uint8x16_t v1 = vld1q_u8(wg + (i - g * size) * 4 + 16);
      // Nibbles 0..15 are non-negative int8 too.
      const int8x16_t first0 = vreinterpretq_s8_u8(vandq_u8(v0, low));   // i..i+3
      const int8x16_t first1 = vreinterpretq_s8_u8(vandq_u8(v1, low));
      const int8x16_t second0 = vreinterpretq_s8_u8(vshrq_n_u8(v0, 4));  // i+4..i+7
      const int8x16_t second1 = vreinterpretq_s8_u8(vshrq_n_u8(v1, 4));
      for (int r = 0; r < R; ++r) {
        const int8x16_t xa = qlinear_broadcast4_neon(x + r * ldx + i);
        const int8x16_t xb = qlinear_broadcast4_neon(x + r * ldx + i + 4);
        sum[r][0] = qlinear_dot4(qlinear_dot4(sum[r][0], first0, xa), second0, xb);
        sum[r][1] = qlinear_dot4(qlinear_dot4(sum[r][1], first1, xa), second1, xb);
      }
    }
    const float* scales = int4_group_scales(wg, size);
    const float32x4_t scale0 = vld1q_f32(scales);
    const float32x4_t scale1 = vld1q_f32(scales + 4);
    for (int r = 0; r < R; ++r) {
      const int32x4_t offset = vdupq_n_s32(8 * sums[r * groups + g]);
      total[r][0] = vfmaq_f32(total[r][0], vcvtq_f32_s32(vsubq_s32(sum[r][0], offset)), scale0);
      total[r][1] = vfmaq_f32(total[r][1], vcvtq_f32_s32(vsubq_s32(sum[r][1], offset)), scale1);
    }
  }
  for (int r = 0; r < R; ++r) {
    vst1q_f32(acc + r * kQBlock, total[r][0]);
    vst1q_f32(acc + r * kQBlock + 4, total[r][1]);
  }
}

// Weight-only: per 4 inputs, each row's 4 weights widened to float and multiplied by the
// same 4 inputs, lane-wise; the lanes of each row are added once at the end.
inline void float_int8_neon(const float* x, int64_t ldx, int rows, int64_t k, const int8_t* w,
                            float* acc) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    const int8_t* wb = w;
    float32x4_t part[kQBlock];
    for (int c = 0; c < kQBlock; ++c) part[c] = vdupq_n_f32(0.0f);
    for (int64_t i = 0; i < k; i += 4, wb += 32) {
      float quad[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // the last quad may be partial
      for (int64_t t = 0; t < 4 && i + t < k; ++t) quad[t] = xr[i + t];
      const float32x4_t xq = vld1q_f32(quad);
      for (int pair = 0; pair < 4; ++pair) {  // 8 bytes: rows 2 pair and 2 pair + 1
        const int16x8_t wide = vmovl_s8(vld1_s8(wb + 8 * pair));
        const float32x4_t first = vcvtq_f32_s32(vmovl_s16(vget_low_s16(wide)));
        const float32x4_t second = vcvtq_f32_s32(vmovl_s16(vget_high_s16(wide)));
        part[2 * pair] = vfmaq_f32(part[2 * pair], first, xq);
        part[2 * pair + 1] = vfmaq_f32(part[2 * pair + 1], second, xq);
      }
    }
    for (int c = 0; c < kQBlock; ++c) acc[r * kQBlock + c] = vaddvq_f32(part[c]);
  }
}

inline constexpr QDynamicInt8 dynamic_int8_neon =
    qlinear_dynamic_int8<dynamic_int8_neon_rows<1>, dynamic_int8_neon_rows<2>,
                         dynamic_int8_neon_rows<3>, dynamic_int8_neon_rows<4>>;
inline constexpr QDynamicInt4 dynamic_int4_neon =
    qlinear_dynamic_int4<dynamic_int4_neon_rows<1>, dynamic_int4_neon_rows<2>,
                         dynamic_int4_neon_rows<3>, dynamic_int4_neon_rows<4>>;

// The set, with its prefill GEMM: util/qlinear_prefill_neon.h.

}  // namespace tailor::quantized

#endif  // __aarch64__
