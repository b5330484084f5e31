// AVX-512 kernels of the quantized linear (contract: util/qlinear_kernels.h; weight layout:
// util/qlinear_layout.h), used when cpu_has_avx512_vnni() (runtime/kernel/cpu_level.h).
// A CPU with AVX-512F but no VNNI runs the AVX2 set.
//
// vpdpbusd adds the four u8 x s8 products of each 32-bit lane to that lane in int32, so
// one instruction replaces AVX2's vpmaddubsw + vpmaddwd pair and nothing saturates in
// int16 on the way. The vectors stay 256 bits wide (AVX512VL): one load of the layout is
// 8 outputs x 4 inputs, exactly one ymm, and Zen 4 splits zmm work into two halves anyway.
// int8 weights enter as |w| with the input's sign flipped where w < 0, as in AVX2; int4
// nibbles (0..15) are already unsigned. Input quantization stays that of qlinear_avx2.h.
//
// The weight-only kernel multiplies in float on zmm: 16 int8 weights (4 rows x 4 inputs)
// widen to floats in two instructions and meet the row's 4 inputs broadcast to every
// quarter, so each weight is converted once for all the rows the call handles.
#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include "kernels/quantized/util/qlinear_avx2.h"
#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/qlinear_layout.h"

// GCC 12 reports its own AVX-512 intrinsics' `__Y = __Y` placeholders as uninitialized
// when they are inlined into a function with a target attribute (a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // clang has no such group
#endif

namespace tailor::quantized {

#define TL_QLINEAR_VNNI __attribute__((target("avx512vnni,avx512vl,avx2,fma")))
#define TL_QLINEAR_AVX512 __attribute__((target("avx512f,avx2,fma")))
#define TL_QLINEAR_VNNI512 __attribute__((target("avx512f,avx512vnni,avx512vl,avx2,fma")))

// Two sums per row, for even and odd quads of inputs: vpdpbusd reads its accumulator, so
// one sum would chain every step on the instruction's latency (4-5 cycles on Zen 4).
template <int R>
TL_QLINEAR_VNNI void dynamic_int8_vnni_rows(const int8_t* x, int64_t ldx, int64_t kp,
                                            const int8_t* w, float* acc) {
  __m256i even[R];
  __m256i odd[R];
  for (int r = 0; r < R; ++r) even[r] = odd[r] = _mm256_setzero_si256();
  int64_t k = 0;
  for (; k + 8 <= kp; k += 8, w += 64) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
    const __m256i m0 = _mm256_abs_epi8(w0);
    const __m256i m1 = _mm256_abs_epi8(w1);
    for (int r = 0; r < R; ++r) {
      const int8_t* xr = x + r * ldx + k;
      even[r] = _mm256_dpbusd_epi32(even[r], m0, _mm256_sign_epi8(qlinear_broadcast4(xr), w0));
      odd[r] = _mm256_dpbusd_epi32(odd[r], m1, _mm256_sign_epi8(qlinear_broadcast4(xr + 4), w1));
    }
  }
  if (k < kp) {  // kp is a multiple of 4: one quad left
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i m0 = _mm256_abs_epi8(w0);
    for (int r = 0; r < R; ++r) {
      const __m256i xs = _mm256_sign_epi8(qlinear_broadcast4(x + r * ldx + k), w0);
      even[r] = _mm256_dpbusd_epi32(even[r], m0, xs);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(acc + r * kQBlock, _mm256_cvtepi32_ps(_mm256_add_epi32(even[r], odd[r])));
  }
}

template <int R>
TL_QLINEAR_VNNI void dynamic_int4_vnni_rows(const int8_t* x, int64_t ldx, int64_t k,
                                            const uint8_t* w, int64_t groups,
                                            const int32_t* sums, float* acc) {
  const int64_t size = k / groups;
  const int64_t group_bytes = int4_group_bytes(size);
  const __m256i low = _mm256_set1_epi8(0x0F);
  __m256 total[R];
  for (int r = 0; r < R; ++r) total[r] = _mm256_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    __m256i low_sum[R];  // low and high nibbles apart, as in the int8 kernel
    __m256i high_sum[R];
    for (int r = 0; r < R; ++r) low_sum[r] = high_sum[r] = _mm256_setzero_si256();
    const uint8_t* wg = w + g * group_bytes;
    for (int64_t i = g * size; i < (g + 1) * size; i += 8) {
      const __m256i v =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wg + (i - g * size) * 4));
      const __m256i first = _mm256_and_si256(v, low);                         // i..i+3
      const __m256i second = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);  // i+4..i+7
      for (int r = 0; r < R; ++r) {
        const int8_t* xr = x + r * ldx + i;
        low_sum[r] = _mm256_dpbusd_epi32(low_sum[r], first, qlinear_broadcast4(xr));
        high_sum[r] = _mm256_dpbusd_epi32(high_sum[r], second, qlinear_broadcast4(xr + 4));
      }
    }
    const __m256 scale = _mm256_loadu_ps(int4_group_scales(wg, size));
    for (int r = 0; r < R; ++r) {
      const __m256i dot = _mm256_sub_epi32(_mm256_add_epi32(low_sum[r], high_sum[r]),
                                           _mm256_set1_epi32(8 * sums[r * groups + g]));
      total[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), scale, total[r]);
    }
  }
  for (int r = 0; r < R; ++r) _mm256_storeu_ps(acc + r * kQBlock, total[r]);
}

// Rows 0-3 (lanes 4c..4c+3: row c) and rows 4-7 of 4 inputs, widened to float.
TL_QLINEAR_AVX512 inline __m512 qlinear_widen16(const int8_t* w) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w));
  return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(bytes));
}

// Lanes 8..15 (AVX-512F has no float extract of 8; the 64-bit one moves the same bits).
TL_QLINEAR_AVX512 inline __m256 qlinear_upper_half(__m512 v) {
  return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
}

// Two sums per half-block and row, for even and odd quads of inputs (two FMA chains
// would wait on the instruction's latency).
template <int R>
TL_QLINEAR_AVX512 void float_int8_avx512_rows(const float* x, int64_t ldx, int64_t k,
                                              const int8_t* w, float* acc) {
  __m512 even[R][2];
  __m512 odd[R][2];
  for (int r = 0; r < R; ++r) {
    even[r][0] = even[r][1] = odd[r][0] = odd[r][1] = _mm512_setzero_ps();
  }
  int64_t i = 0;
  for (; i + 8 <= k; i += 8, w += 64) {
    const __m512 w0 = qlinear_widen16(w);
    const __m512 w1 = qlinear_widen16(w + 16);
    const __m512 w2 = qlinear_widen16(w + 32);
    const __m512 w3 = qlinear_widen16(w + 48);
    for (int r = 0; r < R; ++r) {
      const float* xr = x + r * ldx + i;
      const __m512 xa = _mm512_broadcast_f32x4(_mm_loadu_ps(xr));
      const __m512 xb = _mm512_broadcast_f32x4(_mm_loadu_ps(xr + 4));
      even[r][0] = _mm512_fmadd_ps(w0, xa, even[r][0]);
      even[r][1] = _mm512_fmadd_ps(w1, xa, even[r][1]);
      odd[r][0] = _mm512_fmadd_ps(w2, xb, odd[r][0]);
      odd[r][1] = _mm512_fmadd_ps(w3, xb, odd[r][1]);
    }
  }
  for (; i < k; i += 4, w += 32) {  // a last quad, maybe partial (its padding weights are 0)
    const __m512 w0 = qlinear_widen16(w);
    const __m512 w1 = qlinear_widen16(w + 16);
    for (int r = 0; r < R; ++r) {
      alignas(16) float quad[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      for (int64_t t = 0; i + t < k && t < 4; ++t) quad[t] = x[r * ldx + i + t];
      const __m512 xq = _mm512_broadcast_f32x4(_mm_load_ps(quad));
      even[r][0] = _mm512_fmadd_ps(w0, xq, even[r][0]);
      even[r][1] = _mm512_fmadd_ps(w1, xq, even[r][1]);
    }
  }
  // Lanes 4c..4c+3 of half h add up to output 4h + c: the halves' ymm quarters (two rows
  // each) go through the same hadd rounds as the AVX2 kernel.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int r = 0; r < R; ++r) {
    const __m512 low = _mm512_add_ps(even[r][0], odd[r][0]);   // rows 0-3
    const __m512 high = _mm512_add_ps(even[r][1], odd[r][1]);  // rows 4-7
    const __m256 a = _mm256_hadd_ps(_mm512_castps512_ps256(low), qlinear_upper_half(low));
    const __m256 b = _mm256_hadd_ps(_mm512_castps512_ps256(high), qlinear_upper_half(high));
    _mm256_storeu_ps(acc + r * kQBlock, _mm256_permutevar8x32_ps(_mm256_hadd_ps(a, b), order));
  }
}

// One input row, B blocks side by side (util/qlinear_kernels.h: kQDecodeBlocks says how
// many), 16 inputs of a block per zmm load: lanes 0-7 hold inputs i..i+7 of the 8 rows,
// lanes 8-15 inputs i+8..i+15. Low nibbles meet input quads 0 and 2 of the 16 (one
// vpermd of the 32 inputs loaded per step puts quad 0 in lanes 0-7 and quad 2 in 8-15),
// high nibbles quads 1 and 3; the halves add up once per group, in int32. High nibbles
// enter in place (v & 0xF0 = 16 x nibble): their sums are multiples of 16, shifted back
// exactly, which saves a shift per load. A prefetch per 64-byte line of the block's one
// stream (weights and scales), as the int8 kernel.
template <int B>
TL_QLINEAR_VNNI512 void decode_int4_vnni_blocks(const int8_t* x, int64_t k, const uint8_t* w,
                                                int64_t groups, const int32_t* sums,
                                                float x_scale, const float* bias, float* out) {
  const int64_t size = k / groups;
  const int64_t group_bytes = int4_group_bytes(size);
  const int64_t block_bytes = groups * group_bytes;
  const __m512i low = _mm512_set1_epi8(0x0F);
  const __m512i high = _mm512_set1_epi8(static_cast<char>(0xF0));
  // Quads (of the 32 inputs a step loads) for the low and high nibbles of its two loads.
  const __m512i low0 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2);
  const __m512i high0 = _mm512_setr_epi32(1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m512i low1 = _mm512_setr_epi32(4, 4, 4, 4, 4, 4, 4, 4, 6, 6, 6, 6, 6, 6, 6, 6);
  const __m512i high1 = _mm512_setr_epi32(5, 5, 5, 5, 5, 5, 5, 5, 7, 7, 7, 7, 7, 7, 7, 7);
  __m256 total[B];
  TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) total[j] = _mm256_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    __m512i low_sum[B];
    __m512i high_sum[B];
    TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) low_sum[j] = high_sum[j] = _mm512_setzero_si512();
    const uint8_t* wg = w + g * group_bytes;
    TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
      qlinear_prefetch_group(wg + j * block_bytes, group_bytes);
    }
    for (int64_t i = 0; i < size; i += 32) {
      const __m512i xv = _mm512_castsi256_si512(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + g * size + i)));
      const __m512i xl0 = _mm512_permutexvar_epi32(low0, xv);
      const __m512i xh0 = _mm512_permutexvar_epi32(high0, xv);
      const __m512i xl1 = _mm512_permutexvar_epi32(low1, xv);
      const __m512i xh1 = _mm512_permutexvar_epi32(high1, xv);
      TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
        const uint8_t* wj = wg + j * block_bytes + i * 4;
        const __m512i v0 = _mm512_loadu_si512(wj);
        const __m512i v1 = _mm512_loadu_si512(wj + 64);
        low_sum[j] = _mm512_dpbusd_epi32(low_sum[j], _mm512_and_si512(v0, low), xl0);
        high_sum[j] = _mm512_dpbusd_epi32(high_sum[j], _mm512_and_si512(v0, high), xh0);
        low_sum[j] = _mm512_dpbusd_epi32(low_sum[j], _mm512_and_si512(v1, low), xl1);
        high_sum[j] = _mm512_dpbusd_epi32(high_sum[j], _mm512_and_si512(v1, high), xh1);
      }
    }
    const __m256i offset = _mm256_set1_epi32(8 * sums[g]);
    TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
      const __m512i both = _mm512_add_epi32(low_sum[j], _mm512_srai_epi32(high_sum[j], 4));
      const __m256i dot = _mm256_sub_epi32(
          _mm256_add_epi32(_mm512_castsi512_si256(both), _mm512_extracti64x4_epi64(both, 1)),
          offset);
      const __m256 scale = _mm256_loadu_ps(int4_group_scales(wg + j * block_bytes, size));
      total[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), scale, total[j]);
    }
  }
  TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
    qlinear_finish_store(total[j], x_scale, bias != nullptr ? bias + 8 * j : nullptr,
                         out + 8 * j);
  }
}

template <int B>
TL_QLINEAR_VNNI void decode_int8_vnni_blocks(const int8_t* x, int64_t kp, const int8_t* w,
                                             const float* w_scales, float x_scale,
                                             const float* bias, float* out) {
  const int64_t block_bytes = kp * kQBlock;
  __m256i even[B];
  __m256i odd[B];
  TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) even[j] = odd[j] = _mm256_setzero_si256();
  int64_t k = 0;
  for (; k + 8 <= kp; k += 8) {
    const __m256i xa = qlinear_broadcast4(x + k);
    const __m256i xb = qlinear_broadcast4(x + k + 4);
    TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
      const int8_t* wj = w + j * block_bytes + k * kQBlock;
      _mm_prefetch(reinterpret_cast<const char*>(wj + kQPrefetchBytes), _MM_HINT_T0);
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wj));
      const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wj + 32));
      even[j] = _mm256_dpbusd_epi32(even[j], _mm256_abs_epi8(w0), _mm256_sign_epi8(xa, w0));
      odd[j] = _mm256_dpbusd_epi32(odd[j], _mm256_abs_epi8(w1), _mm256_sign_epi8(xb, w1));
    }
  }
  if (k < kp) {  // one quad left
    const __m256i xa = qlinear_broadcast4(x + k);
    TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
      const __m256i w0 =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + j * block_bytes + k * kQBlock));
      even[j] = _mm256_dpbusd_epi32(even[j], _mm256_abs_epi8(w0), _mm256_sign_epi8(xa, w0));
    }
  }
  TL_QLINEAR_UNROLL for (int j = 0; j < B; ++j) {
    const __m256 products = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(even[j], odd[j])),
                                          _mm256_loadu_ps(w_scales + 8 * j));
    qlinear_finish_store(products, x_scale, bias != nullptr ? bias + 8 * j : nullptr,
                         out + 8 * j);
  }
}

#undef TL_QLINEAR_VNNI
#undef TL_QLINEAR_AVX512
#undef TL_QLINEAR_VNNI512

inline constexpr QDynamicInt8 dynamic_int8_vnni =
    qlinear_dynamic_int8<dynamic_int8_vnni_rows<1>, dynamic_int8_vnni_rows<2>,
                         dynamic_int8_vnni_rows<3>, dynamic_int8_vnni_rows<4>>;
inline constexpr QDynamicInt4 dynamic_int4_vnni =
    qlinear_dynamic_int4<dynamic_int4_vnni_rows<1>, dynamic_int4_vnni_rows<2>,
                         dynamic_int4_vnni_rows<3>, dynamic_int4_vnni_rows<4>>;
inline constexpr QDecodeInt4 decode_int4_vnni =
    qlinear_decode_int4<decode_int4_vnni_blocks<kQDecodeBlocks>, decode_int4_vnni_blocks<1>>;
inline constexpr QDecodeInt8 decode_int8_vnni =
    qlinear_decode_int8<decode_int8_vnni_blocks<kQDecodeBlocks>, decode_int8_vnni_blocks<1>>;

inline void float_int8_avx512(const float* x, int64_t ldx, int rows, int64_t k,
                              const int8_t* w, float* acc) {
  qlinear_pick_rows(rows, &float_int8_avx512_rows<1>, &float_int8_avx512_rows<2>,
                    &float_int8_avx512_rows<3>, &float_int8_avx512_rows<4>)(x, ldx, k, w, acc);
}

// The set, with its prefill GEMM: util/qlinear_prefill_vnni.h.

}  // namespace tailor::quantized

#pragma GCC diagnostic pop

#endif  // __x86_64__
