// AVX2 steps of the quantized convolution (util/qconv.h), called only when cpu_level()
// allows AVX2: an image's largest magnitude, and its rows quantized into the band (NHWC,
// 4 channels to a 32-bit word, 8 pixels at a time) with each pixel's sum. The float steps
// are quantize_value()'s (multiply, round half to even, clamp), so the integers are the
// plain path's.
#pragma once

#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>

#include "kernels/quantized/util/quantize_row.h"

namespace tailor::quantized {

#define TL_QCONV_AVX2 __attribute__((target("avx2")))

TL_QCONV_AVX2 inline float abs_max_avx2(const float* x, int64_t k) {
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 best = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= k; i += 8) {
    // max(value, best): a NaN value leaves best, as abs_max() does.
    best = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(x + i), magnitude), best);
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, best);
  float amax = abs_max(x + i, k - i);
  for (const float lane : lanes) amax = lane > amax ? lane : amax;
  return amax;
}

// `count` (1 to 8) pixels of an input row: channels c..c+3 of each as one word into q
// (pixels cp bytes apart), their sum added to total. Channels from `channels` on are 0.
TL_QCONV_AVX2 inline void qconv_quantize_words_avx2(const float* image, int64_t plane,
                                                    int64_t channels, int64_t c, int count,
                                                    __m256 inverse, int64_t cp, int8_t* q,
                                                    __m256i& total) {
  const __m256 low = _mm256_set1_ps(-127.0f), high = _mm256_set1_ps(127.0f);
  const __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32(count),
                                           _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256i word = _mm256_setzero_si256();
  for (int j = 0; j < 4 && c + j < channels; ++j) {
    __m256 f = _mm256_mul_ps(_mm256_maskload_ps(image + (c + j) * plane, lanes), inverse);
    f = _mm256_round_ps(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i v = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(f, low), high));
    total = _mm256_add_epi32(total, v);
    word = _mm256_or_si256(word, _mm256_slli_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0xff)),
                                                   8 * j));
  }
  if (cp == 4 && count == 8) {  // 3 or 4 channels (a stem): the pixels' words side by side
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), word);
    return;
  }
  int32_t words[8];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(words), word);
  for (int i = 0; i < count; ++i) __builtin_memcpy(q + i * cp + c, &words[i], 4);
}

// Input row y (float CHW image, `plane` = height x width floats a channel) into q (int8,
// cp bytes a pixel) and each pixel's sum into sums, 8 pixels at a time.
TL_QCONV_AVX2 inline void qconv_quantize_row_avx2(const float* image, int64_t plane,
                                                  int64_t channels, int64_t cp, int64_t y,
                                                  int64_t width, float inverse, int8_t* q,
                                                  int32_t* sums) {
  const __m256 scale = _mm256_set1_ps(inverse);
  for (int64_t x = 0; x < width; x += 8) {
    const int count = static_cast<int>(width - x < 8 ? width - x : 8);
    __m256i total = _mm256_setzero_si256();
    const float* at = image + y * width + x;
    for (int64_t c = 0; c < cp; c += 4) {
      qconv_quantize_words_avx2(at, plane, channels, c, count, scale, cp, q + x * cp, total);
    }
    int32_t totals[8];
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(totals), total);
    __builtin_memcpy(sums + x, totals, count * sizeof(int32_t));
  }
}

#undef TL_QCONV_AVX2

}  // namespace tailor::quantized

#endif  // __x86_64__
