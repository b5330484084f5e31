// AVX-512 VNNI prefill GEMM of the quantized linear (contract: util/qlinear_kernels.h,
// "Several rows"), used with the rest of the VNNI set (util/qlinear_avx512.h). Each 4 inputs
// of 16 outputs (two blocks) are one zmm, and every row's 4 inputs one broadcast: vpdpbusd
// multiplies all 16 outputs of a row at once. R rows at a time keep R independent sums in
// flight; the weights come from L1 (int8: the blocks' span, int4: the unpacked buffer).
//
// int8 weights enter as w + 128 (u8, what vpdpbusd's unsigned operand takes; a flipped top
// bit on each quad's load): then sum x * w = sum x * (w + 128) - 128 * sum x, with the row's
// sum from the caller, and no per-row sign flip as in AVX2. int4 unpacks as AVX2 does
// (util/qlinear_prefill_avx2.h).
#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include "kernels/quantized/util/qlinear_avx512.h"
#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/qlinear_prefill_avx2.h"

#pragma GCC diagnostic push  // as in util/qlinear_avx512.h
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace tailor::quantized {

#define TL_QLINEAR_VNNI512 __attribute__((target("avx512f,avx512vnni,avx512vl,avx2,fma")))

// A pair's 16 finished outputs, as `ends` says: qlinear_finish_store on each half.
TL_QLINEAR_VNNI512 inline void qlinear_finish_store16(__m512 products, float x_scale,
                                                      const QPrefillEnds& ends, float* out) {
  qlinear_finish_store(_mm512_castps512_ps256(products), x_scale, ends.bias, out, ends.ldc,
                       ends.low, ends.high);
  qlinear_finish_store(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(products), 1)),
                       x_scale, ends.bias + kQBlock, out + kQBlock * ends.ldc, ends.ldc,
                       ends.low, ends.high);
}

// 8 rows' 16 finished outputs (as qlinear_finish_store16) into columns: rows side by side,
// columns ldc apart (a convolution's NCHW planes), by an 8 x 16 transpose in registers
// where storing each output alone took a store per float.
TL_QLINEAR_VNNI512 inline void qlinear_finish_store8x16_columns(const __m512 (&products)[8],
                                                                const QPrefillEnds& ends) {
  const __m512 b = _mm512_loadu_ps(ends.bias);
  float* const out = ends.out;
  const int64_t ldc = ends.ldc;
  __m512 v[8];
  TL_QLINEAR_UNROLL for (int r = 0; r < 8; ++r) {
    v[r] = _mm512_mul_ps(products[r], _mm512_set1_ps(ends.x_scale[r]));
    __asm__("" : "+v"(v[r]));  // a separate add, as the general path's epilogue
    v[r] = _mm512_add_ps(v[r], b);
  }
  // Only when bounded: the two steps on every row made an unbounded 1x1 layer 10% slower.
  if (ends.bounded()) {
    const __m512 low = _mm512_set1_ps(ends.low), high = _mm512_set1_ps(ends.high);
    TL_QLINEAR_UNROLL for (int r = 0; r < 8; ++r) {
      v[r] = _mm512_min_ps(high, _mm512_max_ps(low, v[r]));
    }
  }
  // Within each 128-bit lane (4 columns): 4 x 4 transposes of rows 0-3 and of rows 4-7, so
  // t[k] holds column 4L + k of its four rows in lane L (t[k + 4]: rows 4-7).
  __m512 t[8];
  TL_QLINEAR_UNROLL for (int h = 0; h < 8; h += 4) {
    const __m512 lo01 = _mm512_unpacklo_ps(v[h], v[h + 1]);
    const __m512 hi01 = _mm512_unpackhi_ps(v[h], v[h + 1]);
    const __m512 lo23 = _mm512_unpacklo_ps(v[h + 2], v[h + 3]);
    const __m512 hi23 = _mm512_unpackhi_ps(v[h + 2], v[h + 3]);
    t[h] = _mm512_shuffle_ps(lo01, lo23, 0x44);
    t[h + 1] = _mm512_shuffle_ps(lo01, lo23, 0xEE);
    t[h + 2] = _mm512_shuffle_ps(hi01, hi23, 0x44);
    t[h + 3] = _mm512_shuffle_ps(hi01, hi23, 0xEE);
  }
  // Column 4L + k is lane L of t[k] then lane L of t[k + 4]: columns 4L + k and
  // 4(L + 2) + k gathered into one zmm, its halves the two columns.
  TL_QLINEAR_UNROLL for (int k = 0; k < 4; ++k) {
    TL_QLINEAR_UNROLL for (int lane = 0; lane < 2; ++lane) {
      // [t[k].L, t[k].L+2, t[k+4].L, t[k+4].L+2], then ordered [L of both, L+2 of both].
      const __m512 pair = lane == 0 ? _mm512_shuffle_f32x4(t[k], t[k + 4], 0x88)
                                    : _mm512_shuffle_f32x4(t[k], t[k + 4], 0xDD);
      const __m512 columns = _mm512_shuffle_f32x4(pair, pair, 0xD8);
      const int64_t col = 4 * lane + k;
      _mm256_storeu_ps(out + col * ldc, _mm512_castps512_ps256(columns));
      _mm256_storeu_ps(out + (col + 8) * ldc,
                       _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(columns), 1)));
    }
  }
}

// sum += the 4 u8 weights of each lane of w times the 4 s8 inputs at x (broadcast), summed:
// vpdpbusd with the inputs broadcast from memory. In asm because GCC copied each
// accumulator to another register and back around the intrinsic, 16 moves for a tile's 8
// products, and the loop ran short of issue slots.
TL_QLINEAR_VNNI512 inline void qlinear_dpbusd_broadcast(__m512i& sum, __m512i w,
                                                        const int8_t* x) {
  __asm__("vpdpbusd %1%{1to16%}, %2, %0"
          : "+v"(sum)
          : "m"(*reinterpret_cast<const char(*)[4]>(x)), "v"(w));
}

template <int R>
TL_QLINEAR_VNNI512 void prefill_int4_vnni_rows(const int8_t* x, int64_t ldx,
                                               const uint8_t* unpacked, int64_t groups,
                                               int64_t size, const uint8_t* w0,
                                               const uint8_t* w1, const int32_t* sums,
                                               int64_t sum_stride, float* totals,
                                               const QPrefillEnds& ends) {
  const int64_t group_bytes = int4_group_bytes(size);
  __m512 total[R];
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    total[r] = ends.first ? _mm512_setzero_ps() : _mm512_loadu_ps(totals + r * 16);
  }
  for (int64_t g = 0; g < groups; ++g) {
    // Each sum starts from -8 times the row's sum over the group (the unpacked weights
    // are w + 8): no subtraction after the products.
    __m512i sum[R];
    TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
      sum[r] = _mm512_set1_epi32(-8 * sums[r * sum_stride + g]);
    }
    const uint8_t* wq = unpacked + g * size * 16;
    const int8_t* xg = x + g * size;
    for (int64_t q = 0; q < size; q += 4) {
      const __m512i wv = _mm512_loadu_si512(wq + q * 16);
      TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
        qlinear_dpbusd_broadcast(sum[r], wv, xg + r * ldx + q);
      }
    }
    // Both blocks' 8 scales of the group in one zmm (a lone block's partner: 0).
    const __m256 scale0 = _mm256_loadu_ps(int4_group_scales(w0 + g * group_bytes, size));
    const __m256 scale1 = w1 != nullptr
                              ? _mm256_loadu_ps(int4_group_scales(w1 + g * group_bytes, size))
                              : _mm256_setzero_ps();
    const __m512 scale = _mm512_castpd_ps(_mm512_insertf64x4(
        _mm512_castps_pd(_mm512_castps256_ps512(scale0)), _mm256_castps_pd(scale1), 1));
    TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
      total[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum[r]), scale, total[r]);
    }
  }
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    if (ends.out == nullptr) {
      _mm512_storeu_ps(totals + r * 16, total[r]);
      continue;
    }
    qlinear_finish_store16(total[r], ends.x_scale[r], ends, ends.at(r, 0));
  }
}

inline void prefill_int4_vnni(const int8_t* x, int64_t ldx, int64_t rows,
                              const uint8_t* unpacked, int64_t groups, int64_t size,
                              const uint8_t* w0, const uint8_t* w1, const int32_t* sums,
                              int64_t sum_stride, float* totals, const QPrefillEnds& ends) {
  auto rows_at = [&](auto kernel, int64_t r) {
    kernel(x + r * ldx, ldx, unpacked, groups, size, w0, w1, sums + r * sum_stride,
           sum_stride, totals + r * 16, ends.from_row(r));
  };
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) rows_at(&prefill_int4_vnni_rows<8>, r);
  for (; r + 2 <= rows; r += 2) rows_at(&prefill_int4_vnni_rows<2>, r);
  for (; r < rows; ++r) rows_at(&prefill_int4_vnni_rows<1>, r);
}


template <int R>
TL_QLINEAR_VNNI512 void prefill_int8_vnni_rows(const int8_t* x, int64_t ldx, const int8_t* w0,
                                               const int8_t* w1, int64_t quads,
                                               const int32_t* sums, int64_t sum_stride,
                                               int32_t* itotals, const QPrefillEnds& ends) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));  // w + 128, as u8
  __m512i sum[R];
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) sum[r] = _mm512_setzero_si512();
  for (int64_t q = 0; q < quads; ++q) {
    const __m512i both = _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w0 + q * 32))),
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w1 + q * 32)), 1);
    const __m512i wv = _mm512_xor_si512(both, flip);
    TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
      qlinear_dpbusd_broadcast(sum[r], wv, x + r * ldx + 4 * q);
    }
  }
  __m512 products[R];
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    const __m512i offset = _mm512_set1_epi32(128 * sums[r * sum_stride]);
    __m512i* t = reinterpret_cast<__m512i*>(itotals + r * 16);
    __m512i total = _mm512_sub_epi32(sum[r], offset);
    if (!ends.first) total = _mm512_add_epi32(_mm512_loadu_si512(t), total);
    if (ends.out == nullptr) {
      _mm512_storeu_si512(t, total);
      continue;
    }
    products[r] = _mm512_mul_ps(_mm512_cvtepi32_ps(total), _mm512_loadu_ps(ends.w_scale));
  }
  if (ends.out == nullptr) return;
  if constexpr (R == 8) {
    if (ends.ldc != 1 && ends.ldo == 1) {
      qlinear_finish_store8x16_columns(products, ends);
      return;
    }
  }
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    qlinear_finish_store16(products[r], ends.x_scale[r], ends, ends.at(r, 0));
  }
}

inline void prefill_int8_vnni(const int8_t* x, int64_t ldx, int64_t rows, const int8_t* w0,
                              const int8_t* w1, int64_t quads, const int32_t* sums,
                              int64_t sum_stride, int32_t* itotals, const QPrefillEnds& ends) {
  auto rows_at = [&](auto kernel, int64_t r) {
    kernel(x + r * ldx, ldx, w0, w1, quads, sums + r * sum_stride, sum_stride,
           itotals + r * 16, ends.from_row(r));
  };
  // Tiles of 8 rows, then of 4 (a convolution's chunks of whole image rows leave up to 7
  // over, where one row at a time loads the weights for each), then one at a time.
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) rows_at(&prefill_int8_vnni_rows<8>, r);
  for (; r + 4 <= rows; r += 4) rows_at(&prefill_int8_vnni_rows<4>, r);
  for (; r < rows; ++r) rows_at(&prefill_int8_vnni_rows<1>, r);
}

#undef TL_QLINEAR_VNNI512

// The weight-only prefill is AVX2's (a pair's weights converted to floats once per 256
// inputs, then every row against them): without one, float_int8_avx512 converted them
// again for every few rows, 2.1x fp32's time at T=64 (now 1.11x). A zmm version would do
// one multiply-add per broadcast input where AVX2's two ymm halves do two.
inline constexpr QLinearKernels kQLinearVnni = {
    "avx512vnni",      quantize_row_avx2, dynamic_int8_vnni, dynamic_int4_vnni,
    float_int8_avx512, decode_int4_vnni,  decode_int8_vnni,  unpack_int4_avx2,
    prefill_int4_vnni, prefill_int8_vnni, prefill_float_int8_avx2,
    quantize_row_sums_avx2, true};

}  // namespace tailor::quantized

#pragma GCC diagnostic pop

#endif  // __x86_64__
