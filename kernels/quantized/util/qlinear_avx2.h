// AVX2 kernels of the quantized linear (contract: util/qlinear_kernels.h; weight layout:
// util/qlinear_layout.h). The runtime is compiled for x86-64's baseline; only these
// functions carry a target attribute, and util/qlinear.h calls them only when
// cpu_level() reports AVX2.
//
// One 32-byte load holds 8 outputs x 4 inputs of int8 weights (or x 8 inputs of int4), and
// one broadcast 4 inputs of a row: vpmaddubsw multiplies them as 32 u8 x s8 pairs into 16
// int16 sums and vpmaddwd against ones widens those to 8 int32 lanes, one per output, so
// nothing is summed across lanes. vpmaddubsw saturates past 32767: int8 weights enter as
// |w| (u8) with the input's sign flipped where w < 0 (vpsignb), at most 2 x 127 x 127 =
// 32258; int4 weights as their nibbles (0..15), at most 2 x 2 x 15 x 127 = 7620 for the
// two halves added in int16. Every sum is exact, as in the reference.
#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include "kernels/quantized/util/qlinear_generic.h"
#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/qlinear_layout.h"

namespace tailor::quantized {

// Four consecutive int8 inputs, in every 32-bit lane.
__attribute__((target("avx2"))) inline __m256i qlinear_broadcast4(const int8_t* x) {
  int32_t v;
  __builtin_memcpy(&v, x, 4);
  return _mm256_set1_epi32(v);
}

// Keeps the compiler from fusing the multiply that made v with a following add into an
// FMA (GCC contracts intrinsics): the kernels' finished outputs must round as the general
// path's scalar epilogue does.
__attribute__((target("avx2"))) inline void qlinear_no_contract(__m256& v) {
  __asm__("" : "+x"(v));
}

// Keeps v's chain of additions in the order written: an accumulator through this after
// each step is not regrouped (GCC reassociates integer additions into trees whose partial
// results outnumber the registers).
__attribute__((target("avx2"))) inline void qlinear_in_order(__m256i& v) {
  __asm__("" : "+x"(v));
}

// 8 finished outputs of a decode or prefill kernel: its products times x_scale, then +
// bias, in the general path's float steps (shared with the VNNI set, whose target includes
// AVX2), bounded to [low, high] as qlinear_bound() does (NaN stays NaN: maxps and minps
// return their second operand when either is NaN), stored ldc apart.
__attribute__((target("avx2"))) inline void qlinear_finish_store(
    __m256 products, float x_scale, const float* bias, float* out, int64_t ldc = 1,
    float low = -__builtin_inff(), float high = __builtin_inff()) {
  __m256 result = _mm256_mul_ps(products, _mm256_set1_ps(x_scale));
  qlinear_no_contract(result);  // a separate add, as the general path's epilogue
  if (bias != nullptr) result = _mm256_add_ps(result, _mm256_loadu_ps(bias));
  result = _mm256_min_ps(_mm256_set1_ps(high), _mm256_max_ps(_mm256_set1_ps(low), result));
  if (ldc == 1) {
    _mm256_storeu_ps(out, result);
    return;
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, result);
  for (int col = 0; col < 8; ++col) out[col * ldc] = lanes[col];
}

// A decode kernel's request for the lines of one int4 group (weights and scales, `bytes`
// from `group`) kQPrefetchBytes ahead: every line of the block's one stream, once.
inline void qlinear_prefetch_group(const uint8_t* group, int64_t bytes) {
  for (int64_t p = 0; p < bytes; p += 64) {
    _mm_prefetch(reinterpret_cast<const char*>(group + kQPrefetchBytes + p), _MM_HINT_T0);
  }
}

// The sum of n int8 values: each byte flipped to unsigned (+128), 32 at a time summed by
// vpsadbw against zero, then 128 x n taken off.
__attribute__((target("avx2"))) inline int32_t sum_int8_avx2(const int8_t* q, int64_t n) {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  __m256i total = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i));
    total = _mm256_add_epi64(total,
                             _mm256_sad_epu8(_mm256_xor_si256(v, flip), _mm256_setzero_si256()));
  }
  int64_t lanes[4];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), total);
  int64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3] - 128 * i;
  for (; i < n; ++i) sum += q[i];
  return static_cast<int32_t>(sum);
}

// The largest |x| over x[0, k) and the scale quantize_scale() makes of it.
__attribute__((target("avx2"))) inline float quantize_scale_avx2(const float* x, int64_t k) {
  const int64_t simd_end = k / 8 * 8;
  const __m256 magnitude_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 vmax = _mm256_setzero_ps();
  for (int64_t i = 0; i < simd_end; i += 8) {
    vmax = _mm256_max_ps(vmax, _mm256_and_ps(_mm256_loadu_ps(x + i), magnitude_mask));
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, vmax);
  float amax = 0.0f;
  for (int j = 0; j < 8; ++j) amax = lanes[j] > amax ? lanes[j] : amax;
  for (int64_t i = simd_end; i < k; ++i) {
    amax = __builtin_fabsf(x[i]) > amax ? __builtin_fabsf(x[i]) : amax;
  }
  return quantize_scale(amax);
}

// Quantizes x[0, n) (n a multiple of 8) into out with `inverse` = 1 / the scale, as
// quantize_value() does: clamped, then rounded by vcvtps2dq in the current rounding mode,
// as nearbyintf rounds (clamping first gives the same integers: the bounds are integers);
// returns the integers' sum in 8 lanes. 32 values a step, packed to bytes in 3 shuffles.
__attribute__((target("avx2"))) inline __m256i quantize_span_avx2(const float* x, int64_t n,
                                                                 float inverse, int8_t* out) {
  const __m256 vinverse = _mm256_set1_ps(inverse);
  const auto quantize = [vinverse](const float* p) __attribute__((target("avx2"))) {
    const __m256 q = _mm256_mul_ps(_mm256_loadu_ps(p), vinverse);
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(q, _mm256_set1_ps(-127.0f)),
                                            _mm256_set1_ps(127.0f)));
  };
  // vpackssdw and vpacksswb work within 128-bit halves: this puts the dwords back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  __m256i sum = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i a = quantize(x + i), b = quantize(x + i + 8);
    const __m256i c = quantize(x + i + 16), d = quantize(x + i + 24);
    sum = _mm256_add_epi32(sum, _mm256_add_epi32(_mm256_add_epi32(a, b), _mm256_add_epi32(c, d)));
    const __m256i bytes =
        _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_permutevar8x32_epi32(bytes, order));
  }
  for (; i < n; i += 8) {
    const __m256i v = quantize(x + i);
    sum = _mm256_add_epi32(sum, v);
    const __m128i shorts =
        _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), _mm_packs_epi16(shorts, shorts));
  }
  return sum;
}

// quantize_row() in 8 lanes: the same float32 steps, so the same integers.
__attribute__((target("avx2"))) inline float quantize_row_avx2(const float* x, int64_t k,
                                                             int64_t k_padded, int8_t* out) {
  const float scale = quantize_scale_avx2(x, k);
  const float inverse = 1.0f / scale;
  const int64_t simd_end = k / 8 * 8;
  quantize_span_avx2(x, simd_end, inverse, out);
  for (int64_t i = simd_end; i < k; ++i) out[i] = quantize_value(x[i], inverse);
  for (int64_t i = k; i < k_padded; ++i) out[i] = 0;
  return scale;
}

// quantize_row_avx2() and group_sums() in one pass: each group's sum from the vectors
// that quantize it (size: a multiple of kInt4Group that divides k).
__attribute__((target("avx2"))) inline float quantize_row_sums_avx2(const float* x, int64_t k,
                                                                  int64_t k_padded,
                                                                  int64_t size, int8_t* out,
                                                                  int32_t* sums) {
  const float scale = quantize_scale_avx2(x, k);
  const float inverse = 1.0f / scale;
  for (int64_t g = 0; g * size < k; ++g) {
    const __m256i lanes = quantize_span_avx2(x + g * size, size, inverse, out + g * size);
    __m128i half =
        _mm_add_epi32(_mm256_castsi256_si128(lanes), _mm256_extracti128_si256(lanes, 1));
    half = _mm_add_epi32(half, _mm_shuffle_epi32(half, _MM_SHUFFLE(1, 0, 3, 2)));
    half = _mm_add_epi32(half, _mm_shuffle_epi32(half, _MM_SHUFFLE(2, 3, 0, 1)));
    sums[g] = _mm_cvtsi128_si32(half);
  }
  for (int64_t i = k; i < k_padded; ++i) out[i] = 0;
  return scale;
}

template <int R>
__attribute__((target("avx2"))) void dynamic_int8_avx2_rows(const int8_t* x, int64_t ldx,
                                                           int64_t kp, const int8_t* w,
                                                           float* acc) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i sum[R];
  for (int r = 0; r < R; ++r) sum[r] = _mm256_setzero_si256();
  for (int64_t k = 0; k < kp; k += 4, w += 32) {
    const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i magnitude = _mm256_abs_epi8(wv);
    for (int r = 0; r < R; ++r) {
      const __m256i xs = _mm256_sign_epi8(qlinear_broadcast4(x + r * ldx + k), wv);
      sum[r] = _mm256_add_epi32(sum[r],
                                _mm256_madd_epi16(_mm256_maddubs_epi16(magnitude, xs), ones));
    }
  }
  for (int r = 0; r < R; ++r) _mm256_storeu_ps(acc + r * kQBlock, _mm256_cvtepi32_ps(sum[r]));
}

template <int R>
__attribute__((target("avx2,fma"))) void dynamic_int4_avx2_rows(
    const int8_t* x, int64_t ldx, int64_t k, const uint8_t* w, int64_t groups,
    const int32_t* sums, float* acc) {
  const int64_t size = k / groups;
  const int64_t group_bytes = int4_group_bytes(size);
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i low = _mm256_set1_epi8(0x0F);
  __m256 total[R];
  for (int r = 0; r < R; ++r) total[r] = _mm256_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    const uint8_t* wg = w + g * group_bytes;
    __m256i sum[R];
    for (int r = 0; r < R; ++r) sum[r] = _mm256_setzero_si256();
    // Each 32 inputs' products add up in int16 (4 x 7620 <= 32767) before one widening.
    for (int64_t i0 = g * size; i0 < (g + 1) * size; i0 += kInt4Group) {
      __m256i pairs[R];
      for (int r = 0; r < R; ++r) pairs[r] = _mm256_setzero_si256();
      for (int64_t i = i0; i < i0 + kInt4Group; i += 8) {
        const __m256i v =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wg + (i - g * size) * 4));
        const __m256i first = _mm256_and_si256(v, low);                         // i..i+3
        const __m256i second = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);  // i+4..i+7
        for (int r = 0; r < R; ++r) {
          const int8_t* xr = x + r * ldx + i;
          pairs[r] = _mm256_add_epi16(
              pairs[r], _mm256_add_epi16(_mm256_maddubs_epi16(first, qlinear_broadcast4(xr)),
                                         _mm256_maddubs_epi16(second, qlinear_broadcast4(xr + 4))));
        }
      }
      for (int r = 0; r < R; ++r) {
        sum[r] = _mm256_add_epi32(sum[r], _mm256_madd_epi16(pairs[r], ones));
      }
    }
    const __m256 scale = _mm256_loadu_ps(int4_group_scales(wg, size));
    for (int r = 0; r < R; ++r) {
      const __m256i dot = _mm256_sub_epi32(sum[r], _mm256_set1_epi32(8 * sums[r * groups + g]));
      total[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), scale, total[r]);
    }
  }
  for (int r = 0; r < R; ++r) _mm256_storeu_ps(acc + r * kQBlock, total[r]);
}

// Weight-only: 4 products of 8 lanes per 4 inputs (rows 2j and 2j + 1, inputs k..k+3),
// reduced across lanes once at the end. Two rows at a time (8 accumulators).
template <int R>
__attribute__((target("avx2,fma"))) void float_int8_avx2_rows(const float* x, int64_t ldx,
                                                            int64_t k, const int8_t* w,
                                                            float* acc) {
  __m256 part[R][4];
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < 4; ++j) part[r][j] = _mm256_setzero_ps();
  }
  for (int64_t i = 0; i < k; i += 4, w += 32) {
    __m256 xq[R];
    for (int r = 0; r < R; ++r) {
      alignas(16) float quad[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // the last quad may be partial
      const float* src = x + r * ldx + i;
      if (i + 4 <= k) {
        xq[r] = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(src));
      } else {
        for (int64_t t = 0; i + t < k; ++t) quad[t] = src[t];
        xq[r] = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(quad));
      }
    }
    for (int j = 0; j < 4; ++j) {
      const __m256 wf = _mm256_cvtepi32_ps(
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w + 8 * j))));
      for (int r = 0; r < R; ++r) part[r][j] = _mm256_fmadd_ps(wf, xq[r], part[r][j]);
    }
  }
  // part[j] lanes: row 2j inputs 0..3, row 2j+1 inputs 0..3. Two rounds of hadd leave
  // rows (0 2 4 6 | 1 3 5 7); the permute puts them in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int r = 0; r < R; ++r) {
    const __m256 a = _mm256_hadd_ps(part[r][0], part[r][1]);
    const __m256 b = _mm256_hadd_ps(part[r][2], part[r][3]);
    _mm256_storeu_ps(acc + r * kQBlock,
                     _mm256_permutevar8x32_ps(_mm256_hadd_ps(a, b), order));
  }
}

// One input row, B blocks side by side: the steps of dynamic_int4_avx2_rows<1> on each.
template <int B>
__attribute__((target("avx2,fma"))) void decode_int4_avx2_blocks(
    const int8_t* x, int64_t k, const uint8_t* w, int64_t groups, const int32_t* sums,
    float x_scale, const float* bias, float* out) {
  const int64_t size = k / groups;
  const int64_t group_bytes = int4_group_bytes(size);
  const int64_t block_bytes = groups * group_bytes;
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i low = _mm256_set1_epi8(0x0F);
  __m256 total[B];
  TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) total[j] = _mm256_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    const uint8_t* wg = w + g * group_bytes;
    TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
      qlinear_prefetch_group(wg + j * block_bytes, group_bytes);
    }
    __m256i sum[B];
    TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) sum[j] = _mm256_setzero_si256();
    for (int64_t i0 = 0; i0 < size; i0 += kInt4Group) {
      __m256i pairs[B];
      TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) pairs[j] = _mm256_setzero_si256();
      for (int64_t i = i0; i < i0 + kInt4Group; i += 8) {
        const __m256i xa = qlinear_broadcast4(x + g * size + i);
        const __m256i xb = qlinear_broadcast4(x + g * size + i + 4);
        TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
          const uint8_t* wj = wg + j * block_bytes + i * 4;
          const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wj));
          const __m256i first = _mm256_and_si256(v, low);
          const __m256i second = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
          pairs[j] = _mm256_add_epi16(pairs[j], _mm256_add_epi16(_mm256_maddubs_epi16(first, xa),
                                                                 _mm256_maddubs_epi16(second, xb)));
        }
      }
      TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
        sum[j] = _mm256_add_epi32(sum[j], _mm256_madd_epi16(pairs[j], ones));
      }
    }
    const __m256i offset = _mm256_set1_epi32(8 * sums[g]);
    TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
      const __m256 scale = _mm256_loadu_ps(int4_group_scales(wg + j * block_bytes, size));
      total[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(sum[j], offset)), scale,
                                 total[j]);
    }
  }
  TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
    qlinear_finish_store(total[j], x_scale, bias != nullptr ? bias + 8 * j : nullptr,
                         out + 8 * j);
  }
}

template <int B>
__attribute__((target("avx2"))) void decode_int8_avx2_blocks(const int8_t* x, int64_t kp,
                                                            const int8_t* w,
                                                            const float* w_scales,
                                                            float x_scale, const float* bias,
                                                            float* out) {
  const int64_t block_bytes = kp * kQBlock;
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i sum[B];
  TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) sum[j] = _mm256_setzero_si256();
  for (int64_t k = 0; k < kp; k += 4) {
    const __m256i xk = qlinear_broadcast4(x + k);
    TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
      if (k % 8 == 0) {
        _mm_prefetch(reinterpret_cast<const char*>(w + j * block_bytes + k * kQBlock +
                                                   kQPrefetchBytes),
                     _MM_HINT_T0);
      }
      const __m256i wv = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(w + j * block_bytes + k * kQBlock));
      const __m256i products =
          _mm256_maddubs_epi16(_mm256_abs_epi8(wv), _mm256_sign_epi8(xk, wv));
      sum[j] = _mm256_add_epi32(sum[j], _mm256_madd_epi16(products, ones));
    }
  }
  TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
    const __m256 products =
        _mm256_mul_ps(_mm256_cvtepi32_ps(sum[j]), _mm256_loadu_ps(w_scales + 8 * j));
    qlinear_finish_store(products, x_scale, bias != nullptr ? bias + 8 * j : nullptr,
                         out + 8 * j);
  }
}

inline constexpr QDynamicInt8 dynamic_int8_avx2 =
    qlinear_dynamic_int8<dynamic_int8_avx2_rows<1>, dynamic_int8_avx2_rows<2>,
                         dynamic_int8_avx2_rows<3>, dynamic_int8_avx2_rows<4>>;
inline constexpr QDynamicInt4 dynamic_int4_avx2 =
    qlinear_dynamic_int4<dynamic_int4_avx2_rows<1>, dynamic_int4_avx2_rows<2>,
                         dynamic_int4_avx2_rows<3>, dynamic_int4_avx2_rows<4>>;
inline constexpr QDecodeInt4 decode_int4_avx2 =
    qlinear_decode_int4<decode_int4_avx2_blocks<kQDecodeBlocks>, decode_int4_avx2_blocks<1>>;
inline constexpr QDecodeInt8 decode_int8_avx2 =
    qlinear_decode_int8<decode_int8_avx2_blocks<kQDecodeBlocks>, decode_int8_avx2_blocks<1>>;

inline void float_int8_avx2(const float* x, int64_t ldx, int rows, int64_t k, const int8_t* w,
                            float* acc) {
  for (int r = 0; r < rows; r += 2) {
    if (rows - r >= 2) {
      float_int8_avx2_rows<2>(x + r * ldx, ldx, k, w, acc + r * kQBlock);
    } else {
      float_int8_avx2_rows<1>(x + r * ldx, ldx, k, w, acc + r * kQBlock);
    }
  }
}

// The set, with its prefill GEMM: util/qlinear_prefill_avx2.h.

}  // namespace tailor::quantized

#endif  // __x86_64__
