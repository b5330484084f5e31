// The contract between the quantized linear (util/qlinear.h) and its per-level kernels
// (qlinear_generic.h, qlinear_avx2.h, qlinear_avx512.h, qlinear_neon.h). Each computes
// one block of 8 outputs (util/qlinear_layout.h) for `rows` (<= kQRows) input rows, into
// acc[r * 8 + c]:
//
//   dynamic_int8: acc = sum_k x[r][k] * w[c][k]       (x int8, kp = K padded to 4)
//   dynamic_int4: acc = sum_g scale[g][c] * (sum_{k in g} x[r][k] * nibble[c][k]
//                                             - 8 * sums[r * groups + g])
//                 (= sum_g scale * sum_k x * w; the scales are the block's own, after
//                 each group's weights)
//   float_int8:   acc = sum_k x[r][k] * w[c][k]       (x float, k inputs)
//
// Input rows are ldx elements apart. `quantize` is quantize_row() (util/quantize_row.h),
// with the same result at every level.
//
// One input row (a decode step) has kernels of its own that stream `blocks` whole blocks
// of weights once, several side by side, and write the finished outputs (8 per block):
//
//   decode_int4: out[c] = x_scale * acc[c] + bias[c]   (acc as dynamic_int4 computes it)
//   decode_int8: out[c] = acc[c] * w_scale[c] * x_scale + bias[c]   (acc as dynamic_int8)
//
// with the same float steps as the general path, so results do not depend on which ran.
// bias/out point at the first block's first output (bias may be nullptr); int8 w_scales
// too; int4 scales lie in the blocks. nullptr in a set: the general path serves M = 1 too.
//
// Several rows (a prefill) may go through a GEMM over a pair of blocks (16 outputs) whose
// int4 weights it unpacks once instead of once per kQRows rows:
//
//   unpack_int4:  the nibbles of groups [g0, g1) (of `size` inputs) of blocks w0 and w1
//                 (nullptr: zeros) into u8, per 4 inputs 64 bytes: w0's 32 bytes (layout
//                 of int8 weights) then w1's
//   prefill_int4: totals[r * 16 + c] += sum_g scale[g][c] * (sum_{k in g} x[r][k] *
//                 nibble[c][k] - 8 * sums[r * sum_stride + g]), over the `groups` groups
//                 of `size` inputs the unpacked buffer holds (x and sums point at the
//                 first of them, w0 and w1 at its bytes in the two blocks, whose scales
//                 they read; w1 nullptr: outputs 8..15 are 0); where the sums start and
//                 end as `ends` says (QPrefillEnds)
//   prefill_int8: itotals[r * 16 + c] += sum_k x[r][k] * w[c][k] (int32, exact) over
//                 `quads` quads, read in place: x, w0 and w1 point at the first (w0 and
//                 w1 in the two int8 blocks, 32 bytes a quad; outputs 8..15 are w1's, any
//                 values when the caller ignores them); sums[r * sum_stride] is the sum of
//                 x[r] over them, for sets that offset the weights (prefill_int8_sums:
//                 the others get whatever the buffer holds); where the sums start
//                 and end as `ends` says (QPrefillEnds)
//
// Each int4 output's float steps are those of dynamic_int4 (one fma per group, in order);
// int8 sums are integers, so every path gives the same outputs.
//
// Weight-only int8 (float inputs) has a prefill of its own, which converts each pair of
// blocks to floats once per kQFloatPanelInputs inputs instead of for every few rows:
//
//   prefill_float_int8: totals[r * 16 + c] = sum_k x[r][k] * w[c][k] over all k inputs
//                 (x float, ldx apart; w0 and w1 int8 blocks, w1 nullptr: outputs 8..15
//                 are 0), panel: kQFloatPanelInputs * 16 floats of scratch
//
// Its sums run in input order, one chain per output, where float_int8 keeps partial sums:
// the two agree to float rounding, not bit for bit (as the float GEMM and GEMV do).
#pragma once

#include <stdint.h>

#include "kernels/quantized/util/qlinear_layout.h"

namespace tailor::quantized {

// Input rows a kernel call handles at most: each weight block loaded once serves them all.
inline constexpr int kQRows = 4;

using QDynamicInt8 = void (*)(const int8_t* x, int64_t ldx, int rows, int64_t kp,
                              const int8_t* w, float* acc);
using QDynamicInt4 = void (*)(const int8_t* x, int64_t ldx, int rows, int64_t k,
                              const uint8_t* w, int64_t groups, const int32_t* sums,
                              float* acc);
using QFloatInt8 = void (*)(const float* x, int64_t ldx, int rows, int64_t k, const int8_t* w,
                            float* acc);

using QDecodeInt4 = void (*)(const int8_t* x, int64_t k, const uint8_t* w, int64_t blocks,
                             int64_t groups, const int32_t* sums, float x_scale,
                             const float* bias, float* out);
using QDecodeInt8 = void (*)(const int8_t* x, int64_t kp, const int8_t* w, int64_t blocks,
                             const float* w_scales, float x_scale, const float* bias,
                             float* out);

// Whether [low, high] bounds anything: not -inf and inf (no fused activation).
inline bool qlinear_bounds_clamp(float low, float high) {
  return low != -__builtin_inff() || high != __builtin_inff();
}

// Where a prefill call's totals start and end: from 0 (`first`, the call over a pair's first
// inputs) or from totals; into totals, or, when `out` is set (the call over its last
// inputs), finished in registers: out[r * ldo + c * ldc] = total * x_scale[r] + bias[c] (int4) or
// total * w_scale[c] * x_scale[r] + bias[c] (int8), in the general path's float steps (bias
// and w_scale: 16 values, bias 0 past the valid outputs), bounded to [low, high] as
// qlinear_bound() does. With one call a pair (K up to
// kQUnpackInputs) totals are never read back: no zeroing, no epilogue pass. A convolution's
// outputs are NCHW columns: ldo 1, ldc the plane.
struct QPrefillEnds {
  bool first = true;
  const float* x_scale = nullptr;  // per row
  const float* w_scale = nullptr;  // int8
  const float* bias = nullptr;
  float* out = nullptr;
  int64_t ldo = 0;
  int64_t ldc = 1;
  float low = -__builtin_inff(), high = __builtin_inff();

  // Where row r's output col goes.
  float* at(int64_t r, int64_t col) const { return out + r * ldo + col * ldc; }
  bool bounded() const { return qlinear_bounds_clamp(low, high); }

  // The same ends for the rows from r on.
  QPrefillEnds from_row(int64_t r) const {
    QPrefillEnds ends = *this;
    if (out != nullptr) {
      ends.x_scale += r;
      ends.out = at(r, 0);
    }
    return ends;
  }
};

using QUnpackInt4 = void (*)(const uint8_t* w0, const uint8_t* w1, int64_t size, int64_t g0,
                             int64_t g1, uint8_t* out);
using QPrefillInt4 = void (*)(const int8_t* x, int64_t ldx, int64_t rows, const uint8_t* unpacked,
                              int64_t groups, int64_t size, const uint8_t* w0,
                              const uint8_t* w1, const int32_t* sums, int64_t sum_stride,
                              float* totals, const QPrefillEnds& ends);

using QPrefillInt8 = void (*)(const int8_t* x, int64_t ldx, int64_t rows, const int8_t* w0,
                              const int8_t* w1,
                              int64_t quads, const int32_t* sums, int64_t sum_stride,
                              int32_t* itotals, const QPrefillEnds& ends);

// Inputs of weight-only int8 converted to floats at a time: 256 x 16 floats, the 16 KB the
// prefill's unpacked buffer holds.
inline constexpr int64_t kQFloatPanelInputs = 256;
using QPrefillFloatInt8 = void (*)(const float* x, int64_t ldx, int64_t rows, int64_t k,
                                   const int8_t* w0, const int8_t* w1, float* panel,
                                   float* totals);

using QQuantizeRow = float (*)(const float* x, int64_t k, int64_t k_padded, int8_t* out);
// quantize, and sums[g] = the sum of group g's integers (groups of `size` inputs, int4's
// row sums), in one pass.
using QQuantizeSums = float (*)(const float* x, int64_t k, int64_t k_padded, int64_t size,
                                int8_t* out, int32_t* sums);

// The instance of a kernel template over R = 1..kQRows rows that serves `rows` rows.
template <typename F>
F qlinear_pick_rows(int rows, F one, F two, F three, F four) {
  return rows == 1 ? one : rows == 2 ? two : rows == 3 ? three : four;
}

// Loops over a kernel's few blocks or rows, unrolled so their accumulators stay in
// registers (GCC -O2 leaves such loops rolled and keeps the arrays on the stack).
#define TL_QLINEAR_UNROLL _Pragma("GCC unroll 8")

// Blocks [0, blocks) of a decode kernel, kQDecodeBlocks at a time, then one at a time.
// One: a matrix's blocks lie one after the other, so one block at a time reads a single
// stream; 4 side by side (4 streams) made bench/qlinear.cpp's stream pass 1.6x slower.
// set(b, QWidth<width>()) computes blocks b .. b + width - 1.
inline constexpr int kQDecodeBlocks = 1;
// How far ahead of its loads a decode kernel asks for weights: the one stream of a
// matrix's blocks outruns the hardware prefetcher's distance otherwise (measured with
// bench/qlinear.cpp stream: 1-2 KB ahead took a pass from 5.4 to 4.4-4.7 ms).
inline constexpr int64_t kQPrefetchBytes = 2048;
template <int W>
struct QWidth {
  static constexpr int value = W;
};
template <typename Set>
void qlinear_decode_sets(int64_t blocks, Set set) {
  int64_t b = 0;
  for (; b + kQDecodeBlocks <= blocks; b += kQDecodeBlocks) {
    set(b, QWidth<kQDecodeBlocks>());
  }
  for (; b < blocks; ++b) set(b, QWidth<1>());
}

// A set's row and block kernels (templates over R rows or B blocks), and the entries of
// QLinearKernels made from their instances, so each set writes its kernels only.
using QDynamicInt8Rows = void (*)(const int8_t* x, int64_t ldx, int64_t kp, const int8_t* w,
                                  float* acc);
using QDynamicInt4Rows = void (*)(const int8_t* x, int64_t ldx, int64_t k, const uint8_t* w,
                                  int64_t groups, const int32_t* sums, float* acc);
using QDecodeInt4Blocks = void (*)(const int8_t* x, int64_t k, const uint8_t* w,
                                   int64_t groups, const int32_t* sums, float x_scale,
                                   const float* bias, float* out);
using QDecodeInt8Blocks = void (*)(const int8_t* x, int64_t kp, const int8_t* w,
                                   const float* w_scales, float x_scale, const float* bias,
                                   float* out);

template <QDynamicInt8Rows One, QDynamicInt8Rows Two, QDynamicInt8Rows Three,
          QDynamicInt8Rows Four>
void qlinear_dynamic_int8(const int8_t* x, int64_t ldx, int rows, int64_t kp, const int8_t* w,
                          float* acc) {
  qlinear_pick_rows(rows, One, Two, Three, Four)(x, ldx, kp, w, acc);
}

template <QDynamicInt4Rows One, QDynamicInt4Rows Two, QDynamicInt4Rows Three,
          QDynamicInt4Rows Four>
void qlinear_dynamic_int4(const int8_t* x, int64_t ldx, int rows, int64_t k, const uint8_t* w,
                          int64_t groups, const int32_t* sums, float* acc) {
  qlinear_pick_rows(rows, One, Two, Three, Four)(x, ldx, k, w, groups, sums, acc);
}

// Wide: the instance for kQDecodeBlocks blocks; One: for a single block.
template <QDecodeInt4Blocks Wide, QDecodeInt4Blocks One>
void qlinear_decode_int4(const int8_t* x, int64_t k, const uint8_t* w, int64_t blocks,
                         int64_t groups, const int32_t* sums, float x_scale, const float* bias,
                         float* out) {
  const int64_t block_bytes = groups * int4_group_bytes(k / groups);
  qlinear_decode_sets(blocks, [&](int64_t b, auto width) {
    const QDecodeInt4Blocks kernel = decltype(width)::value == 1 ? One : Wide;
    kernel(x, k, w + b * block_bytes, groups, sums, x_scale,
           bias != nullptr ? bias + b * kQBlock : nullptr, out + b * kQBlock);
  });
}

template <QDecodeInt8Blocks Wide, QDecodeInt8Blocks One>
void qlinear_decode_int8(const int8_t* x, int64_t kp, const int8_t* w, int64_t blocks,
                         const float* w_scales, float x_scale, const float* bias, float* out) {
  qlinear_decode_sets(blocks, [&](int64_t b, auto width) {
    const QDecodeInt8Blocks kernel = decltype(width)::value == 1 ? One : Wide;
    kernel(x, kp, w + b * kp * kQBlock, w_scales + b * kQBlock, x_scale,
           bias != nullptr ? bias + b * kQBlock : nullptr, out + b * kQBlock);
  });
}

struct QLinearKernels {
  const char* name;  // "avx512vnni", "avx2", "neon-dotprod", "neon", "generic"
  QQuantizeRow quantize;
  QDynamicInt8 dynamic_int8;
  QDynamicInt4 dynamic_int4;
  QFloatInt8 float_int8;
  QDecodeInt4 decode_int4;
  QDecodeInt8 decode_int8;
  QUnpackInt4 unpack_int4;
  QPrefillInt4 prefill_int4;
  QPrefillInt8 prefill_int8;
  QPrefillFloatInt8 prefill_float_int8;
  QQuantizeSums quantize_sums = nullptr;  // nullptr: quantize, then group_sums()
  bool prefill_int8_sums = false;         // prefill_int8 reads the rows' sums (VNNI)
};

}  // namespace tailor::quantized
