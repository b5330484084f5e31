// AVX2 dot kernels of the quantized linear (contract: util/qlinear_kernels.h). The runtime
// is compiled for x86-64's baseline; only these functions carry a target attribute, and
// util/qlinear.h calls them only when cpu_level() reports AVX2.
//
// Integer products use vpmaddwd (_mm256_madd_epi16): 16 int16 inputs (already centered
// on their zero point, in [-255, 255]) times 16 weights widened to int16, summed in pairs
// into 8 int32 lanes. Unlike vpmaddubsw (u8 x s8 -> saturating int16) it cannot saturate
// for int8 weights, so the sums are exact and match the reference bit for bit. Each
// group's int32 sums become float and are scaled once per group.
#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include "kernels/quantized/util/int4.h"
#include "kernels/quantized/util/qlinear_generic.h"
#include "kernels/quantized/util/qlinear_kernels.h"

namespace tailor::quantized {

__attribute__((target("avx2,fma"))) inline float qlinear_hsum_avx2(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

template <int R>
__attribute__((target("avx2,fma"))) void dot_dynamic_int8_avx2_rows(
    const int16_t* x, int64_t k, const int8_t* w, const float* scales, int64_t groups,
    float* acc) {
  const int64_t size = k / groups;
  __m256 total[R];
  float tail[R];
  for (int r = 0; r < R; ++r) {
    total[r] = _mm256_setzero_ps();
    tail[r] = 0.0f;
  }
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t begin = g * size;
    const int64_t simd_end = begin + size / 16 * 16;
    __m256i dot[R];
    for (int r = 0; r < R; ++r) dot[r] = _mm256_setzero_si256();
    for (int64_t i = begin; i < simd_end; i += 16) {
      const __m256i w16 =
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i)));
      for (int r = 0; r < R; ++r) {
        const __m256i x16 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + r * k + i));
        dot[r] = _mm256_add_epi32(dot[r], _mm256_madd_epi16(x16, w16));
      }
    }
    const __m256 scale = _mm256_set1_ps(scales[g]);
    for (int r = 0; r < R; ++r) {
      total[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r]), scale, total[r]);
      int32_t rest = 0;
      for (int64_t i = simd_end; i < begin + size; ++i) rest += int32_t{x[r * k + i]} * w[i];
      tail[r] += static_cast<float>(rest) * scales[g];
    }
  }
  for (int r = 0; r < R; ++r) acc[r] = qlinear_hsum_avx2(total[r]) + tail[r];
}

template <int R>
__attribute__((target("avx2,fma"))) void dot_dynamic_int4_avx2_rows(
    const int16_t* x, int64_t k, const uint8_t* w, const float* scales, int64_t groups,
    float* acc) {
  const int64_t size = k / groups;  // a multiple of kInt4Block (checked by the op)
  const __m256i low_mask = _mm256_set1_epi16(0xF);
  const __m256i offset = _mm256_set1_epi16(8);
  __m256 total[R];
  for (int r = 0; r < R; ++r) total[r] = _mm256_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    __m256i dot[R];
    for (int r = 0; r < R; ++r) dot[r] = _mm256_setzero_si256();
    for (int64_t i = g * size; i < (g + 1) * size; i += kInt4Block) {
      const __m256i bytes =
          _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i / 2)));
      const __m256i first = _mm256_sub_epi16(_mm256_and_si256(bytes, low_mask), offset);
      const __m256i second = _mm256_sub_epi16(_mm256_srli_epi16(bytes, 4), offset);
      for (int r = 0; r < R; ++r) {
        const int16_t* xr = x + r * k + i;
        const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr));
        const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + 16));
        dot[r] = _mm256_add_epi32(dot[r], _mm256_add_epi32(_mm256_madd_epi16(x0, first),
                                                           _mm256_madd_epi16(x1, second)));
      }
    }
    const __m256 scale = _mm256_set1_ps(scales[g]);
    for (int r = 0; r < R; ++r) {
      total[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r]), scale, total[r]);
    }
  }
  for (int r = 0; r < R; ++r) acc[r] = qlinear_hsum_avx2(total[r]);
}

template <int R>
__attribute__((target("avx2,fma"))) void dot_float_int8_avx2_rows(
    const float* x, int64_t ldx, int64_t k, const int8_t* w, const float* scales,
    int64_t groups, float* acc) {
  const int64_t size = k / groups;
  __m256 total[R];
  float tail[R];
  for (int r = 0; r < R; ++r) {
    total[r] = _mm256_setzero_ps();
    tail[r] = 0.0f;
  }
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t begin = g * size;
    const int64_t simd_end = begin + size / 8 * 8;
    __m256 dot[R];
    for (int r = 0; r < R; ++r) dot[r] = _mm256_setzero_ps();
    for (int64_t i = begin; i < simd_end; i += 8) {
      const __m256 wf = _mm256_cvtepi32_ps(
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w + i))));
      for (int r = 0; r < R; ++r) {
        dot[r] = _mm256_fmadd_ps(_mm256_loadu_ps(x + r * ldx + i), wf, dot[r]);
      }
    }
    const __m256 scale = _mm256_set1_ps(scales[g]);
    for (int r = 0; r < R; ++r) {
      total[r] = _mm256_fmadd_ps(dot[r], scale, total[r]);
      float rest = 0.0f;
      for (int64_t i = simd_end; i < begin + size; ++i) {
        rest += x[r * ldx + i] * static_cast<float>(w[i]);
      }
      tail[r] += rest * scales[g];
    }
  }
  for (int r = 0; r < R; ++r) acc[r] = qlinear_hsum_avx2(total[r]) + tail[r];
}

inline void dot_dynamic_int8_avx2(const int16_t* x, int rows, int64_t k, const int8_t* w,
                                  const float* scales, int64_t groups, float* acc) {
  switch (rows) {
    case 1: return dot_dynamic_int8_avx2_rows<1>(x, k, w, scales, groups, acc);
    case 2: return dot_dynamic_int8_avx2_rows<2>(x, k, w, scales, groups, acc);
    case 3: return dot_dynamic_int8_avx2_rows<3>(x, k, w, scales, groups, acc);
    default: return dot_dynamic_int8_avx2_rows<4>(x, k, w, scales, groups, acc);
  }
}

inline void dot_dynamic_int4_avx2(const int16_t* x, int rows, int64_t k, const uint8_t* w,
                                  const float* scales, int64_t groups, float* acc) {
  switch (rows) {
    case 1: return dot_dynamic_int4_avx2_rows<1>(x, k, w, scales, groups, acc);
    case 2: return dot_dynamic_int4_avx2_rows<2>(x, k, w, scales, groups, acc);
    case 3: return dot_dynamic_int4_avx2_rows<3>(x, k, w, scales, groups, acc);
    default: return dot_dynamic_int4_avx2_rows<4>(x, k, w, scales, groups, acc);
  }
}

inline void dot_float_int8_avx2(const float* x, int64_t ldx, int rows, int64_t k,
                                const int8_t* w, const float* scales, int64_t groups,
                                float* acc) {
  switch (rows) {
    case 1: return dot_float_int8_avx2_rows<1>(x, ldx, k, w, scales, groups, acc);
    case 2: return dot_float_int8_avx2_rows<2>(x, ldx, k, w, scales, groups, acc);
    case 3: return dot_float_int8_avx2_rows<3>(x, ldx, k, w, scales, groups, acc);
    default: return dot_float_int8_avx2_rows<4>(x, ldx, k, w, scales, groups, acc);
  }
}

inline constexpr QLinearKernels kQLinearAvx2 = {"avx2", dot_dynamic_int8_avx2,
                                                dot_dynamic_int4_avx2, dot_float_int8_avx2};

}  // namespace tailor::quantized

#endif  // __x86_64__
