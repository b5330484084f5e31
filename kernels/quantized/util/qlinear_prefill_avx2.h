// AVX2 prefill GEMM of the quantized linear (contract: util/qlinear_kernels.h, "Several
// rows"): every row of the chunk reads a pair of weight blocks (16 outputs), int4 unpacked
// once into L1, R rows at a time, each row's 4 inputs broadcast once for both blocks.
//
// int4: the nibbles (0..15) enter vpmaddubsw as u8; 8 quads of products add up in int16
// (8 x 2 x 15 x 127 = 30480 <= 32767) before vpmaddwd widens them, as in the general kernel.
// int8: |w| as u8 with the input's sign flipped where w < 0 (vpsignb), as in the general
// kernel, the blocks read in place and |w| taken once per R rows. Weight-only int8 (float inputs): the two blocks as floats, and FMAs.
#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include "kernels/quantized/util/qlinear_avx2.h"
#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/qlinear_layout.h"

namespace tailor::quantized {

__attribute__((target("avx2"))) inline void unpack_int4_avx2(const uint8_t* w0, const uint8_t* w1,
                                                           int64_t size, int64_t g0, int64_t g1,
                                                           uint8_t* out) {
  const __m256i low = _mm256_set1_epi8(0x0F);
  const int64_t group_bytes = int4_group_bytes(size);
  for (int64_t g = g0; g < g1; ++g) {
    for (int64_t i = 0; i < size; i += 8, out += 128) {
      const int64_t at = g * group_bytes + i * 4;
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w0 + at));
      const __m256i b = w1 != nullptr
                            ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w1 + at))
                            : _mm256_setzero_si256();
      __m256i* o = reinterpret_cast<__m256i*>(out);
      _mm256_storeu_si256(o, _mm256_and_si256(a, low));                            // i..i+3
      _mm256_storeu_si256(o + 1, _mm256_and_si256(b, low));
      _mm256_storeu_si256(o + 2, _mm256_and_si256(_mm256_srli_epi16(a, 4), low));  // i+4..i+7
      _mm256_storeu_si256(o + 3, _mm256_and_si256(_mm256_srli_epi16(b, 4), low));
    }
  }
}

// The int32 sums of one kInt4Group of inputs (x, and wq in the unpacked buffer) of R rows
// against both blocks. Only the int16 pairs are live in the loop (R x 2 + 3 of the 16
// registers); GCC otherwise regroups the integer additions into a tree, computing all 8
// quads' products first, and spills them to the stack.
template <int R>
__attribute__((target("avx2"))) inline void prefill_int4_avx2_chunk(const int8_t* x, int64_t ldx,
                                                                    const uint8_t* wq,
                                                                    __m256i (&dot)[R][2]) {
  __m256i pairs[R][2];
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) pairs[r][0] = pairs[r][1] = _mm256_setzero_si256();
  TL_QLINEAR_UNROLL for (int q = 0; q < kInt4Group / 4; ++q) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wq + q * 64));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wq + q * 64 + 32));
    TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
      const __m256i xb = qlinear_broadcast4(x + r * ldx + 4 * q);
      pairs[r][0] = _mm256_add_epi16(pairs[r][0], _mm256_maddubs_epi16(w0, xb));
      pairs[r][1] = _mm256_add_epi16(pairs[r][1], _mm256_maddubs_epi16(w1, xb));
      qlinear_in_order(pairs[r][0]);
      qlinear_in_order(pairs[r][1]);
    }
  }
  const __m256i ones = _mm256_set1_epi16(1);
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    TL_QLINEAR_UNROLL for (int h = 0; h < 2; ++h) dot[r][h] = _mm256_madd_epi16(pairs[r][h], ones);
  }
}

// The end of one group for R rows: its int32 sums (dot) less 8 times the rows' input sums
// (the unpacked weights are w + 8), times both blocks' scales, added to the totals; the
// first group starts them from zero (kStart), the last finishes the outputs (kFinish).
// Compiled per case, so the groups between have no branch and no load of `ends`.
template <int R, bool kStart, bool kFinish>
__attribute__((target("avx2,fma"))) inline void prefill_int4_avx2_group_end(
    const __m256i (&dot)[R][2], const __m256 (&scale)[2], const int32_t* sums,
    int64_t sum_stride, float* totals, const QPrefillEnds& ends) {
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    // Broadcast from memory and shifted in the vector: no trip through a general register.
    const __m256i offset = _mm256_slli_epi32(
        _mm256_broadcastd_epi32(_mm_loadu_si32(sums + r * sum_stride)), 3);
    TL_QLINEAR_UNROLL for (int h = 0; h < 2; ++h) {
      float* t = totals + r * 16 + h * kQBlock;
      const __m256 products = _mm256_cvtepi32_ps(_mm256_sub_epi32(dot[r][h], offset));
      const __m256 total =
          _mm256_fmadd_ps(products, scale[h], kStart ? _mm256_setzero_ps() : _mm256_loadu_ps(t));
      if constexpr (kFinish) {
        qlinear_finish_store(total, ends.x_scale[r], ends.bias + h * kQBlock,
                             ends.at(r, h * kQBlock), ends.ldc, ends.low, ends.high);
      } else {
        _mm256_storeu_ps(t, total);
      }
    }
  }
}

template <int R>
__attribute__((target("avx2,fma"))) void prefill_int4_avx2_rows(
    const int8_t* x, int64_t ldx, const uint8_t* unpacked, int64_t groups, int64_t size,
    const uint8_t* w0, const uint8_t* w1, const int32_t* sums, int64_t sum_stride,
    float* totals, const QPrefillEnds& ends) {
  const int64_t group_bytes = int4_group_bytes(size);
  for (int64_t g = 0; g < groups; ++g) {
    __m256i dot[R][2];
    prefill_int4_avx2_chunk<R>(x + g * size, ldx, unpacked + g * size * 16, dot);
    for (int64_t i0 = g * size + kInt4Group; i0 < (g + 1) * size; i0 += kInt4Group) {
      __m256i more[R][2];
      prefill_int4_avx2_chunk<R>(x + i0, ldx, unpacked + i0 * 16, more);
      TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
        TL_QLINEAR_UNROLL for (int h = 0; h < 2; ++h) {
          dot[r][h] = _mm256_add_epi32(dot[r][h], more[r][h]);
        }
      }
    }
    // Both blocks' 8 scales of the group (a lone block's partner: 0).
    const __m256 scale[2] = {
        _mm256_loadu_ps(int4_group_scales(w0 + g * group_bytes, size)),
        w1 != nullptr ? _mm256_loadu_ps(int4_group_scales(w1 + g * group_bytes, size))
                      : _mm256_setzero_ps()};
    const bool start = ends.first && g == 0;
    const bool finish = ends.out != nullptr && g + 1 == groups;
    auto end = [&](auto kernel) { kernel(dot, scale, sums + g, sum_stride, totals, ends); };
    if (!start && !finish) {
      end(&prefill_int4_avx2_group_end<R, false, false>);
    } else if (!finish) {
      end(&prefill_int4_avx2_group_end<R, true, false>);
    } else if (!start) {
      end(&prefill_int4_avx2_group_end<R, false, true>);
    } else {
      end(&prefill_int4_avx2_group_end<R, true, true>);
    }
  }
}

template <int R>
__attribute__((target("avx2"))) void prefill_int8_avx2_rows(const int8_t* x, int64_t ldx,
                                                           const int8_t* block0,
                                                           const int8_t* block1, int64_t quads,
                                                           int32_t* itotals,
                                                           const QPrefillEnds& ends) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i sum[R][2];
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) sum[r][0] = sum[r][1] = _mm256_setzero_si256();
  for (int64_t q = 0; q < quads; ++q) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block0 + q * 32));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block1 + q * 32));
    const __m256i m0 = _mm256_abs_epi8(w0);
    const __m256i m1 = _mm256_abs_epi8(w1);
    TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
      const __m256i xb = qlinear_broadcast4(x + r * ldx + 4 * q);
      sum[r][0] = _mm256_add_epi32(
          sum[r][0], _mm256_madd_epi16(_mm256_maddubs_epi16(m0, _mm256_sign_epi8(xb, w0)), ones));
      sum[r][1] = _mm256_add_epi32(
          sum[r][1], _mm256_madd_epi16(_mm256_maddubs_epi16(m1, _mm256_sign_epi8(xb, w1)), ones));
    }
  }
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    TL_QLINEAR_UNROLL for (int h = 0; h < 2; ++h) {
      __m256i* t = reinterpret_cast<__m256i*>(itotals + r * 16 + h * kQBlock);
      const __m256i total =
          ends.first ? sum[r][h] : _mm256_add_epi32(_mm256_loadu_si256(t), sum[r][h]);
      if (ends.out != nullptr) {
        const __m256 products = _mm256_mul_ps(_mm256_cvtepi32_ps(total),
                                              _mm256_loadu_ps(ends.w_scale + h * kQBlock));
        qlinear_finish_store(products, ends.x_scale[r], ends.bias + h * kQBlock,
                             ends.at(r, h * kQBlock), ends.ldc, ends.low, ends.high);
      } else {
        _mm256_storeu_si256(t, total);
      }
    }
  }
}

// Quads [q0, q1) of int8 blocks w0 and w1 (nullptr: zeros) as floats, per input 16: w0's
// 8 outputs, then w1's. A quad's 32 bytes hold the 8 outputs' 4 inputs side by side
// (util/qlinear_layout.h); the shuffle gathers each input's 8 bytes into one 64-bit lane.
__attribute__((target("avx2"))) inline void unpack_float_int8_avx2(const int8_t* w0,
                                                                 const int8_t* w1, int64_t q0,
                                                                 int64_t q1, float* panel) {
  const __m256i by_input = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                            0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m256i lanes = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int64_t q = q0; q < q1; ++q, panel += 64) {
    for (int h = 0; h < 2; ++h) {
      const int8_t* w = h == 0 ? w0 : w1;
      // Bytes 8t..8t+7: input t's weights of outputs 0..7.
      const __m256i bytes =
          w != nullptr ? _mm256_permutevar8x32_epi32(
                             _mm256_shuffle_epi8(_mm256_loadu_si256(
                                                     reinterpret_cast<const __m256i*>(w + q * 32)),
                                                 by_input),
                             lanes)
                       : _mm256_setzero_si256();
      alignas(32) int64_t inputs[4];
      _mm256_store_si256(reinterpret_cast<__m256i*>(inputs), bytes);
      for (int t = 0; t < 4; ++t) {
        const __m256i v = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(inputs[t]));
        _mm256_storeu_ps(panel + t * 16 + h * kQBlock, _mm256_cvtepi32_ps(v));
      }
    }
  }
}

// totals[r * 16 + c] = (first ? 0 : totals[r * 16 + c]) + sum over i < count of x[r][i] *
// panel[i * 16 + c], R rows: one multiply-add chain per output, in input order.
template <int R>
__attribute__((target("avx2,fma"))) void prefill_float_int8_avx2_rows(
    const float* x, int64_t ldx, int64_t count, const float* panel, bool first, float* totals) {
  __m256 acc[R][2];
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    TL_QLINEAR_UNROLL for (int h = 0; h < 2; ++h) {
      acc[r][h] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(totals + r * 16 + h * kQBlock);
    }
  }
  for (int64_t i = 0; i < count; ++i, panel += 16) {
    const __m256 w0 = _mm256_loadu_ps(panel);
    const __m256 w1 = _mm256_loadu_ps(panel + kQBlock);
    TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
      const __m256 xb = _mm256_broadcast_ss(x + r * ldx + i);
      acc[r][0] = _mm256_fmadd_ps(xb, w0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(xb, w1, acc[r][1]);
    }
  }
  TL_QLINEAR_UNROLL for (int r = 0; r < R; ++r) {
    TL_QLINEAR_UNROLL for (int h = 0; h < 2; ++h) {
      _mm256_storeu_ps(totals + r * 16 + h * kQBlock, acc[r][h]);
    }
  }
}

// The weight-only prefill (contract: util/qlinear_kernels.h): a span of the pair's weights
// at a time as floats in the panel, then every row against it, 6 at a time (12 sums, the
// two weight vectors and a broadcast: 15 of the 16 registers).
inline void prefill_float_int8_avx2(const float* x, int64_t ldx, int64_t rows, int64_t k,
                                    const int8_t* w0, const int8_t* w1, float* panel,
                                    float* totals) {
  constexpr int64_t kSpan = kQFloatPanelInputs;
  for (int64_t i0 = 0; i0 < k; i0 += kSpan) {
    const int64_t count = k - i0 < kSpan ? k - i0 : kSpan;
    unpack_float_int8_avx2(w0, w1, i0 / 4, (i0 + count + 3) / 4, panel);
    auto rows_at = [&](auto kernel, int64_t r) {
      kernel(x + r * ldx + i0, ldx, count, panel, i0 == 0, totals + r * 16);
    };
    int64_t r = 0;
    for (; r + 6 <= rows; r += 6) rows_at(&prefill_float_int8_avx2_rows<6>, r);
    switch (rows - r) {
      case 5: rows_at(&prefill_float_int8_avx2_rows<5>, r); break;
      case 4: rows_at(&prefill_float_int8_avx2_rows<4>, r); break;
      case 3: rows_at(&prefill_float_int8_avx2_rows<3>, r); break;
      case 2: rows_at(&prefill_float_int8_avx2_rows<2>, r); break;
      case 1: rows_at(&prefill_float_int8_avx2_rows<1>, r); break;
      default: break;
    }
  }
}

// Rows in tiles of kTile, then one at a time.
template <int kTile, typename Tile, typename One>
void qlinear_prefill_tiles(int64_t rows, Tile tile, One one) {
  int64_t r = 0;
  for (; r + kTile <= rows; r += kTile) tile(r);
  for (; r < rows; ++r) one(r);
}

inline void prefill_int4_avx2(const int8_t* x, int64_t ldx, int64_t rows, const uint8_t* unpacked,
                              int64_t groups, int64_t size, const uint8_t* w0,
                              const uint8_t* w1, const int32_t* sums, int64_t sum_stride,
                              float* totals, const QPrefillEnds& ends) {
  auto rows_at = [&](auto kernel, int64_t r) {
    kernel(x + r * ldx, ldx, unpacked, groups, size, w0, w1, sums + r * sum_stride,
           sum_stride, totals + r * 16, ends.from_row(r));
  };
  qlinear_prefill_tiles<4>(
      rows, [&](int64_t r) { rows_at(&prefill_int4_avx2_rows<4>, r); },
      [&](int64_t r) { rows_at(&prefill_int4_avx2_rows<1>, r); });
}

inline void prefill_int8_avx2(const int8_t* x, int64_t ldx, int64_t rows, const int8_t* w0,
                              const int8_t* w1, int64_t quads, const int32_t*, int64_t,
                              int32_t* itotals, const QPrefillEnds& ends) {
  auto rows_at = [&](auto kernel, int64_t r) {
    kernel(x + r * ldx, ldx, w0, w1, quads, itotals + r * 16, ends.from_row(r));
  };
  qlinear_prefill_tiles<4>(
      rows, [&](int64_t r) { rows_at(&prefill_int8_avx2_rows<4>, r); },
      [&](int64_t r) { rows_at(&prefill_int8_avx2_rows<1>, r); });
}

inline constexpr QLinearKernels kQLinearAvx2 = {
    "avx2",           quantize_row_avx2, dynamic_int8_avx2, dynamic_int4_avx2,
    float_int8_avx2,  decode_int4_avx2,  decode_int8_avx2,  unpack_int4_avx2,
    prefill_int4_avx2, prefill_int8_avx2, prefill_float_int8_avx2,
    quantize_row_sums_avx2};

}  // namespace tailor::quantized

#endif  // __x86_64__
