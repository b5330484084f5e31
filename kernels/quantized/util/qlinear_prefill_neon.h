// aarch64 prefill GEMM of the quantized linear (contract: util/qlinear_kernels.h, "Several
// rows"), used with the rest of the NEON set (util/qlinear_neon.h): a pair of weight blocks
// (16 outputs; int4 unpacked once per chunk of rows), and each row's 4 inputs, broadcast
// once, meet the 4 q registers of a quad (rows 0-3 and 4-7 of each block) through
// qlinear_dot4 (sdot where the compiler targets it). Weights and inputs are both signed
// there, so int8 blocks are read in place and int4 nibbles (0..15) are s8 as they are.
#pragma once

#if defined(__aarch64__)

#include <arm_neon.h>

#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/qlinear_layout.h"
#include "kernels/quantized/util/qlinear_neon.h"

namespace tailor::quantized {

inline void unpack_int4_neon(const uint8_t* w0, const uint8_t* w1, int64_t size, int64_t g0,
                             int64_t g1, uint8_t* out) {
  const uint8x16_t low = vdupq_n_u8(0x0F);
  const uint8x16_t zero = vdupq_n_u8(0);
  const int64_t group_bytes = int4_group_bytes(size);
  for (int64_t g = g0; g < g1; ++g) {
    for (int64_t i = 0; i < size; i += 8, out += 128) {
      for (int half = 0; half < 2; ++half) {  // 16 bytes: block rows 0-3, then 4-7
        const int64_t at = g * group_bytes + i * 4 + 16 * half;
        const uint8x16_t a = vld1q_u8(w0 + at);
        const uint8x16_t b = w1 != nullptr ? vld1q_u8(w1 + at) : zero;
        vst1q_u8(out + 16 * half, vandq_u8(a, low));        // i..i+3
        vst1q_u8(out + 32 + 16 * half, vandq_u8(b, low));
        vst1q_u8(out + 64 + 16 * half, vshrq_n_u8(a, 4));   // i+4..i+7
        vst1q_u8(out + 96 + 16 * half, vshrq_n_u8(b, 4));
      }
    }
  }
}

// sum[r][j] += the quad's 4 x 4 products of output lanes 4j..4j+3, R rows: lanes 0-7 from
// the 32 bytes at q0, 8-15 from those at q1.
template <int R>
inline void qlinear_prefill_quad_neon(const int8_t* x, int64_t ldx, const void* q0,
                                      const void* q1, int32x4_t (*sum)[4]) {
  const int8_t* b0 = static_cast<const int8_t*>(q0);
  const int8_t* b1 = static_cast<const int8_t*>(q1);
  const int8x16_t w[4] = {vld1q_s8(b0), vld1q_s8(b0 + 16), vld1q_s8(b1), vld1q_s8(b1 + 16)};
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    const int8x16_t xb = qlinear_broadcast4_neon(x + r * ldx);
    for (int j = 0; j < 4; ++j) sum[r][j] = qlinear_dot4(sum[r][j], w[j], xb);
  }
}

// 4 finished outputs: total times x_scale plus bias in one fused step, as the general
// path's scalar epilogue rounds on aarch64, where GCC and clang contract its a * b + c
// into an fmadd (C++ allows it; the 8da8w check compares the two bit for bit); bounded to
// [low, high] (fmax and fmin keep a NaN), ldc apart.
inline void qlinear_finish_store_neon(float32x4_t total, float x_scale, const float* bias,
                                      float* out, int64_t ldc, float low, float high) {
  const float32x4_t result = vminq_f32(
      vmaxq_f32(vfmaq_n_f32(vld1q_f32(bias), total, x_scale), vdupq_n_f32(low)),
      vdupq_n_f32(high));
  if (ldc == 1) {
    vst1q_f32(out, result);
    return;
  }
  float lanes[4];
  vst1q_f32(lanes, result);
  for (int col = 0; col < 4; ++col) out[col * ldc] = lanes[col];
}

template <int R>
void prefill_int4_neon_rows(const int8_t* x, int64_t ldx, const uint8_t* unpacked,
                            int64_t groups, int64_t size, const uint8_t* w0, const uint8_t* w1,
                            const int32_t* sums, int64_t sum_stride, float* totals,
                            const QPrefillEnds& ends) {
  const int64_t group_bytes = int4_group_bytes(size);
  const float32x4_t zero = vdupq_n_f32(0.0f);
  for (int64_t g = 0; g < groups; ++g) {
    // Each sum starts from -8 times the row's sum over the group (the unpacked weights
    // are w + 8): no subtraction after the products.
    int32x4_t sum[R][4];
    for (int r = 0; r < R; ++r) {
      for (int j = 0; j < 4; ++j) sum[r][j] = vdupq_n_s32(-8 * sums[r * sum_stride + g]);
    }
    for (int64_t i = g * size; i < (g + 1) * size; i += 4) {
      qlinear_prefill_quad_neon<R>(x + i, ldx, unpacked + i * 16, unpacked + i * 16 + 32, sum);
    }
    // Both blocks' 8 scales of the group (a lone block's partner: 0).
    const float* s0 = int4_group_scales(w0 + g * group_bytes, size);
    const float* s1 = w1 != nullptr ? int4_group_scales(w1 + g * group_bytes, size) : nullptr;
    const float32x4_t scale[4] = {vld1q_f32(s0), vld1q_f32(s0 + 4),
                                  s1 != nullptr ? vld1q_f32(s1) : zero,
                                  s1 != nullptr ? vld1q_f32(s1 + 4) : zero};
    const bool start = ends.first && g == 0;
    const bool finish = ends.out != nullptr && g + 1 == groups;
    for (int r = 0; r < R; ++r) {
      for (int j = 0; j < 4; ++j) {
        float* t = totals + r * 16 + 4 * j;
        const float32x4_t dot = vcvtq_f32_s32(sum[r][j]);
        const float32x4_t total = vfmaq_f32(start ? zero : vld1q_f32(t), dot, scale[j]);
        if (finish) {
          qlinear_finish_store_neon(total, ends.x_scale[r], ends.bias + 4 * j,
                                    ends.at(r, 4 * j), ends.ldc, ends.low, ends.high);
        } else {
          vst1q_f32(t, total);
        }
      }
    }
  }
}

template <int R>
void prefill_int8_neon_rows(const int8_t* x, int64_t ldx, const int8_t* w0, const int8_t* w1,
                            int64_t quads, int32_t* itotals, const QPrefillEnds& ends) {
  int32x4_t sum[R][4];
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < 4; ++j) {
      sum[r][j] = ends.first ? vdupq_n_s32(0) : vld1q_s32(itotals + r * 16 + 4 * j);
    }
  }
  for (int64_t q = 0; q < quads; ++q) {
    qlinear_prefill_quad_neon<R>(x + 4 * q, ldx, w0 + q * 32, w1 + q * 32, sum);
  }
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < 4; ++j) {
      if (ends.out != nullptr) {
        const float32x4_t products =
            vmulq_f32(vcvtq_f32_s32(sum[r][j]), vld1q_f32(ends.w_scale + 4 * j));
        qlinear_finish_store_neon(products, ends.x_scale[r], ends.bias + 4 * j,
                                  ends.at(r, 4 * j), ends.ldc, ends.low, ends.high);
      } else {
        vst1q_s32(itotals + r * 16 + 4 * j, sum[r][j]);
      }
    }
  }
}

inline void prefill_int4_neon(const int8_t* x, int64_t ldx, int64_t rows, const uint8_t* unpacked,
                              int64_t groups, int64_t size, const uint8_t* w0,
                              const uint8_t* w1, const int32_t* sums, int64_t sum_stride,
                              float* totals, const QPrefillEnds& ends) {
  for (int64_t r = 0; r < rows;) {
    const int64_t n = rows - r >= 4 ? 4 : 1;
    qlinear_pick_rows(static_cast<int>(n), &prefill_int4_neon_rows<1>, &prefill_int4_neon_rows<2>,
                      &prefill_int4_neon_rows<3>, &prefill_int4_neon_rows<4>)(
        x + r * ldx, ldx, unpacked, groups, size, w0, w1, sums + r * sum_stride, sum_stride,
        totals + r * 16, ends.from_row(r));
    r += n;
  }
}

inline void prefill_int8_neon(const int8_t* x, int64_t ldx, int64_t rows, const int8_t* w0,
                              const int8_t* w1, int64_t quads, const int32_t*, int64_t,
                              int32_t* itotals, const QPrefillEnds& ends) {
  for (int64_t r = 0; r < rows;) {
    const int64_t n = rows - r >= 4 ? 4 : 1;
    qlinear_pick_rows(static_cast<int>(n), &prefill_int8_neon_rows<1>, &prefill_int8_neon_rows<2>,
                      &prefill_int8_neon_rows<3>, &prefill_int8_neon_rows<4>)(
        x + r * ldx, ldx, w0, w1, quads, itotals + r * 16, ends.from_row(r));
    r += n;
  }
}

inline constexpr QLinearKernels kQLinearNeon = {
#if defined(__ARM_FEATURE_DOTPROD)
    "neon-dotprod",
#else
    "neon",
#endif
    quantize_row,     dynamic_int8_neon, dynamic_int4_neon, float_int8_neon,
    nullptr,          nullptr,           unpack_int4_neon,  prefill_int4_neon,
    prefill_int8_neon, nullptr};

}  // namespace tailor::quantized

#endif  // __aarch64__
