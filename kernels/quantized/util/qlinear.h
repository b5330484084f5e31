// The quantized linear behind tailor_quant::linear.out (kernels/quantized/op_linear.cpp):
//
//   dynamic:     out[m, n] = x_scale[m] * sum_g w_scale[n, g] * sum_{k in g} xq[m, k] * w[n, k]
//                            + bias[n]   (each input row quantized per token, quantize_row.h)
//   weight-only: out[m, n] = w_scale[n] * sum_k x[m, k] * w[n, k] + bias[n]   (int8)
//
// Input rows go in chunks that the scratch buffers hold (kQRowBuffer bytes of quantized
// inputs, so K <= 64 Ki): each chunk is quantized once, then every block of 8 weight rows
// (util/qlinear_layout.h) runs over the chunk's rows kQRows at a time, so a block's
// weights stay in L1 while all the rows use them; with several threads, each takes a
// range of blocks. The block kernels are the best the CPU allows: AVX-512 VNNI or AVX2
// on x86-64 when the CPU has them, NEON (with sdot where the compiler targets it) on
// aarch64, plain C++ otherwise. The chunk's buffers (kQLinearScratchBytes) come from the
// calling thread's kernel scratch slice (runtime/kernel/kernel_scratch.h), not the stack,
// so the kernel runs on the small thread stacks of embedded targets.
#pragma once

#include <stdint.h>

#include "kernels/quantized/util/qlinear_avx2.h"
#include "kernels/quantized/util/qlinear_avx512.h"
#include "kernels/quantized/util/qlinear_generic.h"
#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/qlinear_layout.h"
#include "kernels/quantized/util/qlinear_neon.h"
#include "kernels/quantized/util/qlinear_prefill_avx2.h"
#include "kernels/quantized/util/qlinear_prefill_neon.h"
#include "kernels/quantized/util/qlinear_prefill_vnni.h"
#include "kernels/quantized/util/quantize_row.h"
#include "runtime/kernel/cpu_level.h"
#include "runtime/kernel/kernel_context.h"

namespace tailor::quantized {

inline constexpr int64_t kQRowBuffer = 64 * 1024;  // quantized input bytes per chunk
inline constexpr int64_t kQSumBuffer = 4096;       // int4 group sums per chunk
inline constexpr int64_t kQMaxChunkRows = 256;
// The prefill GEMM's span: kQUnpackInputs inputs of a block pair at a time (16 bytes each:
// 16 KB, in L1 while every row of the chunk reads them). Its buffers, per task: the span
// of int4 weights unpacked, and the pair's sums for every row of the chunk.
inline constexpr int64_t kQUnpackInputs = 1024;
inline constexpr size_t kQPrefillScratchBytes = kQUnpackInputs * 16 + kQMaxChunkRows * 16 * 4;
// The weight-only prefill's float panel takes the unpacked buffer's place.
static_assert(kQFloatPanelInputs * 16 * sizeof(float) <= kQUnpackInputs * 16);
// Chunks of fewer rows take the general path: a pair's set-up costs about as much as a row.
inline constexpr int64_t kQPrefillMinRows = 4;
// One call's scratch: the quantized rows, the int4 group sums and the row scales, then the
// prefill GEMM's buffers, each 64-byte aligned (as they are: the sizes are multiples of
// 64). The manifest's scratch_bytes of tailor_quant::linear.out.
inline constexpr size_t kQLinearScratchBytes = kQRowBuffer + kQSumBuffer * sizeof(int32_t) +
                                               kQMaxChunkRows * sizeof(float) +
                                               kQPrefillScratchBytes;

struct QLinearArgs {
  int64_t m = 0;                   // input rows
  int64_t n = 0;                   // outputs (weight rows)
  int64_t k = 0;                   // inputs per row
  int64_t groups = 1;              // weight scale groups per weight row (int8: 1)
  int weight_bits = 8;             // 8 or 4, packed as util/qlinear_layout.h says
  bool dynamic_input = true;       // quantize each input row per token
  const float* x = nullptr;        // [m, k]
  const void* w = nullptr;
  const float* scales = nullptr;   // int8: [n]; int4: unused (the blocks hold them)
  const float* bias = nullptr;     // [n] or nullptr
  float* out = nullptr;            // [m, n], or as the strides say
  int64_t out_row_stride = 0;      // 0: n, each row's outputs side by side
  int64_t out_col_stride = 1;      // tailor_quant::conv2d writes NCHW: m apart
  float low = -__builtin_inff();   // the outputs' bounds (tailor_quant::conv2d's fused
  float high = __builtin_inff();   // relu or relu6)
};

inline bool qlinear_bounded(const QLinearArgs& a) { return qlinear_bounds_clamp(a.low, a.high); }

// v within [a.low, a.high]; NaN stays NaN, as torch's clamp.
inline float qlinear_bound(const QLinearArgs& a, float v) {
  v = v < a.low ? a.low : v;
  return v > a.high ? a.high : v;
}

inline int64_t qlinear_out_row_stride(const QLinearArgs& a) {
  return a.out_row_stride != 0 ? a.out_row_stride : a.n;
}

// Where output (row, col) goes.
inline float* qlinear_out(const QLinearArgs& a, int64_t row, int64_t col) {
  return a.out + row * qlinear_out_row_stride(a) + col * a.out_col_stride;
}

// The output scales (int8: one per weight row; int4 kernels apply their own) and bias of
// W columns from n0, `valid` of them real and the rest padding (scale 1, bias 0), so an
// epilogue is one fixed-length loop the compiler puts on vectors.
template <int W>
inline void qlinear_epilogue_columns(const QLinearArgs& a, int64_t n0, int64_t valid,
                                     float (&w_scale)[W], float (&bias)[W]) {
  for (int64_t col = 0; col < W; ++col) {
    w_scale[col] = a.weight_bits == 8 && col < valid ? a.scales[n0 + col] : 1.0f;
    bias[col] = a.bias != nullptr && col < valid ? a.bias[n0 + col] : 0.0f;
  }
}

// The first `valid` of W results of output row `row` from column n0 into out: all W by
// one fixed-size copy where they lie side by side (no call), else one by one.
template <int W>
inline void qlinear_store(const QLinearArgs& a, int64_t row, int64_t n0, int64_t valid,
                          const float (&result)[W]) {
  float* out = qlinear_out(a, row, n0);
  if (a.out_col_stride == 1 && valid == W) {
    __builtin_memcpy(out, result, sizeof(result));
  } else {
    for (int64_t col = 0; col < valid; ++col) out[col * a.out_col_stride] = result[col];
  }
}

// The best kernels this CPU may run (cpu_level() and cpu_has_avx512_vnni() follow the
// TL_CPU_LEVEL cap, which is how tests pick a lower set).
inline const QLinearKernels& qlinear_kernels() {
#if defined(__x86_64__)
  if constexpr (kCpuLevelCeiling >= CpuLevel::Avx512) {
    if (cpu_has_avx512_vnni()) return kQLinearVnni;
  }
  if constexpr (kCpuLevelCeiling >= CpuLevel::Avx2) {
    if (cpu_level() >= CpuLevel::Avx2) return kQLinearAvx2;
  }
#elif defined(__aarch64__)
  return kQLinearNeon;
#endif
  return kQLinearGeneric;
}

inline int64_t qlinear_min(int64_t a, int64_t b) { return a < b ? a : b; }

// A quantized row's sums over the prefill GEMM's spans of kQUnpackInputs (span_sums()), on
// vectors where the CPU has them.
inline void qlinear_span_sums(const int8_t* q, int64_t k, int32_t* sums) {
#if defined(__x86_64__)
  if (cpu_level() >= CpuLevel::Avx2) {
    for (int64_t s = 0; s * kQUnpackInputs < k; ++s) {
      sums[s] = sum_int8_avx2(q + s * kQUnpackInputs,
                              qlinear_min(k - s * kQUnpackInputs, kQUnpackInputs));
    }
    return;
  }
#endif
  span_sums(q, k, kQUnpackInputs, sums);
}

// Bytes of one block of 8 weight rows (int4: with its groups' scales).
inline int64_t qlinear_block_bytes(int64_t k, int64_t groups, int weight_bits) {
  return weight_bits == 4 ? groups * int4_group_bytes(k / groups)
                          : qlinear_padded_k(k) * kQBlock;
}

// The int4 groups of a block of row_bytes bytes over k inputs (row_bytes = k * 4 + groups
// * kInt4ScaleBytes), or 0 when row_bytes holds no whole number of them.
inline int64_t qlinear_int4_groups(int64_t k, int64_t row_bytes) {
  const int64_t scale_bytes = row_bytes - k * 4;
  return scale_bytes > 0 && scale_bytes % kInt4ScaleBytes == 0 ? scale_bytes / kInt4ScaleBytes
                                                               : 0;
}

// Whether weight [rows, row_bytes] packs n rows of k values in `groups` scale groups at
// `weight_bits` as util/qlinear_layout.h lays them out: one group for int8, whole int4
// groups of a multiple of kInt4Group values. The linear and the embedding that reads a
// tied linear's table both check their operands with it (util/qlinear_operands.h).
inline bool qlinear_layout_fits(int64_t k, int64_t n, int64_t groups, int weight_bits,
                                int64_t rows, int64_t row_bytes) {
  const bool groups_fit = weight_bits == 8 ? groups == 1
                                           : groups > 0 && k % groups == 0 &&
                                                 (k / groups) % kInt4Group == 0;
  return k > 0 && groups_fit && rows == (n + kQBlock - 1) / kQBlock &&
         row_bytes == qlinear_block_bytes(k, groups, weight_bits);
}

// The sums kept per quantized row: int4, one per group (the nibbles' offset of 8); int8,
// one per kQUnpackInputs inputs (the prefill GEMM's offset, util/qlinear_prefill_vnni.h).
inline int64_t qlinear_row_sums(int64_t k, int64_t groups, int weight_bits) {
  return weight_bits == 4 ? groups : (qlinear_padded_k(k) + kQUnpackInputs - 1) / kQUnpackInputs;
}

// Input rows per chunk (0 when not even one row fits the buffers), with row_bytes of
// quantized rows.
inline int64_t qlinear_chunk_rows(int64_t k, int64_t groups, int weight_bits, bool dynamic,
                                  int64_t row_bytes = kQRowBuffer) {
  if (!dynamic) return kQMaxChunkRows;
  int64_t rows = row_bytes / qlinear_padded_k(k);
  rows = qlinear_min(rows, kQSumBuffer / qlinear_row_sums(k, groups, weight_bits));
  return qlinear_min(rows, kQMaxChunkRows);
}

// Below this many multiply-adds per chunk a call stays on one thread: waking another
// costs about a microsecond (bench/qlinear.py measures where splitting starts to pay).
inline constexpr int64_t kQParallelMin = 128 * 1024;

// One chunk of input rows, quantized, and the weight blocks each task takes.
struct QLinearChunk {
  const QLinearKernels* kernels;
  const QLinearArgs* a;
  int64_t m0, rows, kp, block_bytes;
  int8_t* buffer;           // quantized rows, kp apart (dynamic)
  int32_t* sums;            // qlinear_row_sums() per row, sum_stride apart
  int64_t sum_stride;
  float* row_scale;         // per row (dynamic)
  int64_t blocks_per_task;  // of 8 weight rows
};

// A chunk of one dynamic row (a decode step), when the set has decode kernels: the whole
// blocks of [b0, b1) stream through them, each read once. Returns the first block left
// to qlinear_blocks' general steps (a partial last block, or all of them).
inline int64_t qlinear_decode(const QLinearChunk& c, int64_t b0, int64_t b1) {
  const QLinearArgs& a = *c.a;
  const QLinearKernels& kernels = *c.kernels;
  const int64_t end = qlinear_min(b1, a.n / kQBlock);
  const bool fits = a.weight_bits == 4 ? kernels.decode_int4 != nullptr
                                       : kernels.decode_int8 != nullptr;
  if (c.rows != 1 || !a.dynamic_input || !fits || end <= b0 || a.out_col_stride != 1 ||
      qlinear_bounded(a)) {
    return b0;
  }
  const int64_t n0 = b0 * kQBlock;
  const uint8_t* w = static_cast<const uint8_t*>(a.w) + b0 * c.block_bytes;
  const float* bias = a.bias != nullptr ? a.bias + n0 : nullptr;
  float* out = qlinear_out(a, c.m0, n0);
  if (a.weight_bits == 4) {
    kernels.decode_int4(c.buffer, a.k, w, end - b0, a.groups, c.sums, c.row_scale[0], bias,
                        out);
  } else {
    kernels.decode_int8(c.buffer, c.kp, reinterpret_cast<const int8_t*>(w), end - b0,
                        a.scales + n0, c.row_scale[0], bias, out);
  }
  return end;
}

// Whether the chunk's products go through the set's prefill GEMM.
inline bool qlinear_prefill_fits(const QLinearChunk& c) {
  const QLinearArgs& a = *c.a;
  if (c.rows < kQPrefillMinRows) return false;
  if (!a.dynamic_input) return c.kernels->prefill_float_int8 != nullptr;
  return a.weight_bits == 4
             ? c.kernels->prefill_int4 != nullptr && a.k / a.groups <= kQUnpackInputs
             : c.kernels->prefill_int8 != nullptr;
}

// One block pair's sums over every input, into totals (int4 and weight-only int8: float;
// int8: int32), kQUnpackInputs inputs at a time (int4 unpacked; weight-only:
// kQFloatPanelInputs, as floats). `last` is the last call's ends (out set: the outputs
// finished in the kernel, totals left as they are).
inline void qlinear_prefill_pair(const QLinearChunk& c, const uint8_t* w0, const uint8_t* w1,
                                 uint8_t* unpacked, void* totals, const QPrefillEnds& last) {
  const QLinearArgs& a = *c.a;
  const QLinearKernels& kernels = *c.kernels;
  if (!a.dynamic_input) {
    kernels.prefill_float_int8(a.x + c.m0 * a.k, a.k, c.rows, a.k,
                               reinterpret_cast<const int8_t*>(w0),
                               reinterpret_cast<const int8_t*>(w1),
                               reinterpret_cast<float*>(unpacked), static_cast<float*>(totals));
    return;
  }
  if (a.weight_bits == 4) {
    const int64_t size = a.k / a.groups;
    const int64_t group_bytes = int4_group_bytes(size);
    const int64_t step = kQUnpackInputs / size;  // groups unpacked at a time
    for (int64_t g = 0; g < a.groups; g += step) {
      const int64_t count = qlinear_min(step, a.groups - g);
      QPrefillEnds ends = g + count == a.groups ? last : QPrefillEnds{};
      ends.first = g == 0;
      kernels.unpack_int4(w0, w1, size, g, g + count, unpacked);
      kernels.prefill_int4(c.buffer + g * size, c.kp, c.rows, unpacked, count, size,
                           w0 + g * group_bytes, w1 != nullptr ? w1 + g * group_bytes : nullptr,
                           c.sums + g, c.sum_stride, static_cast<float*>(totals), ends);
    }
    return;
  }
  // int8 blocks are read in place (a lone block twice: its partner's outputs are dropped),
  // kQUnpackInputs inputs at a time, 16 KB of both blocks in L1 while every row reads them.
  const int8_t* block0 = reinterpret_cast<const int8_t*>(w0);
  const int8_t* block1 = w1 != nullptr ? reinterpret_cast<const int8_t*>(w1) : block0;
  const int64_t quads = c.kp / 4;
  for (int64_t q = 0, s = 0; q < quads; q += kQUnpackInputs / 4, ++s) {
    const int64_t end = qlinear_min(quads, q + kQUnpackInputs / 4);
    QPrefillEnds ends = end == quads ? last : QPrefillEnds{};
    ends.first = q == 0;
    kernels.prefill_int8(c.buffer + q * 4, c.kp, c.rows, block0 + q * 32, block1 + q * 32,
                         end - q, c.sums + s, c.sum_stride, static_cast<int32_t*>(totals), ends);
  }
}

// Blocks [b0, b1) of the chunk through the prefill GEMM, two at a time: every row of the
// chunk reads each pair's weights (kQUnpackInputs inputs at a time, int4 unpacked once).
// Returns the first block left to the general steps (b0 when `scratch` has no
// room for the buffers).
inline int64_t qlinear_prefill(const QLinearChunk& c, int64_t b0, int64_t b1,
                               KernelScratch& scratch) {
  const QLinearArgs& a = *c.a;
  ScratchScope scope(scratch);
  uint8_t* unpacked = scratch.allocate<uint8_t>(kQUnpackInputs * 16);
  float* totals = scratch.allocate<float>(kQMaxChunkRows * 16);
  if (unpacked == nullptr || totals == nullptr) return b0;
  const int32_t* itotals = reinterpret_cast<const int32_t*>(totals);
  for (int64_t b = b0; b < b1; b += 2) {
    const uint8_t* w0 = static_cast<const uint8_t*>(a.w) + b * c.block_bytes;
    const uint8_t* w1 = b + 1 < b1 ? w0 + c.block_bytes : nullptr;
    const int64_t n0 = b * kQBlock;
    const int64_t valid = qlinear_min(w1 != nullptr ? 2 * kQBlock : kQBlock, a.n - n0);
    float w_scale[16];
    float bias[16];
    qlinear_epilogue_columns(a, n0, valid, w_scale, bias);
    // Dynamic outputs of whole pairs are finished in the kernel; the rest by the general
    // path's epilogue below, over the pair's 16 columns.
    QPrefillEnds last;
    if (a.dynamic_input && valid == 16) {
      last = {false, c.row_scale, w_scale, bias, qlinear_out(a, c.m0, n0),
              qlinear_out_row_stride(a), a.out_col_stride, a.low, a.high};
    }
    qlinear_prefill_pair(c, w0, w1, unpacked, totals, last);
    if (last.out != nullptr) continue;
    for (int64_t r = 0; r < c.rows; ++r) {
      float result[16];
      const float x_scale = a.dynamic_input ? c.row_scale[r] : 1.0f;
      if (!a.dynamic_input) {
        for (int64_t col = 0; col < 16; ++col) {
          result[col] = totals[r * 16 + col] * w_scale[col] * x_scale + bias[col];
        }
      } else if (a.weight_bits == 4) {
        for (int64_t col = 0; col < 16; ++col) {
          result[col] = totals[r * 16 + col] * x_scale + bias[col];
        }
      } else {
        for (int64_t col = 0; col < 16; ++col) {
          result[col] = static_cast<float>(itotals[r * 16 + col]) * w_scale[col] * x_scale +
                        bias[col];
        }
      }
      for (float& v : result) v = qlinear_bound(a, v);
      qlinear_store(a, c.m0 + r, n0, valid, result);
    }
  }
  return b1;
}

// Weight blocks [b0, b1) of the chunk: every row of the chunk, kQRows at a time.
inline void qlinear_blocks(const QLinearChunk& c, int64_t b0, int64_t b1, KernelScratch& scratch) {
  const QLinearArgs& a = *c.a;
  float acc[kQRows * kQBlock];
  const int64_t first = qlinear_prefill_fits(c) ? qlinear_prefill(c, b0, b1, scratch)
                                                : qlinear_decode(c, b0, b1);
  for (int64_t b = first; b < b1; ++b) {
    const int64_t n0 = b * kQBlock;
    const uint8_t* w = static_cast<const uint8_t*>(a.w) + b * c.block_bytes;
    const int64_t valid = qlinear_min(kQBlock, a.n - n0);
    float w_scale[kQBlock];
    float bias[kQBlock];
    qlinear_epilogue_columns(a, n0, valid, w_scale, bias);
    for (int64_t t = 0; t < c.rows; t += kQRows) {
      const int rows = static_cast<int>(qlinear_min(kQRows, c.rows - t));
      if (!a.dynamic_input) {
        c.kernels->float_int8(a.x + (c.m0 + t) * a.k, a.k, rows, a.k,
                              reinterpret_cast<const int8_t*>(w), acc);
      } else if (a.weight_bits == 4) {
        c.kernels->dynamic_int4(c.buffer + t * c.kp, c.kp, rows, a.k, w, a.groups,
                                c.sums + t * c.sum_stride, acc);
      } else {
        c.kernels->dynamic_int8(c.buffer + t * c.kp, c.kp, rows, c.kp,
                                reinterpret_cast<const int8_t*>(w), acc);
      }
      for (int r = 0; r < rows; ++r) {
        const float x_scale = a.dynamic_input ? c.row_scale[t + r] : 1.0f;
        float result[kQBlock];
        for (int64_t col = 0; col < kQBlock; ++col) {
          result[col] =
              qlinear_bound(a, acc[r * kQBlock + col] * w_scale[col] * x_scale + bias[col]);
        }
        qlinear_store(a, c.m0 + t + r, n0, valid, result);
      }
    }
  }
}

inline void qlinear_task(void* context, int64_t i, ::tailor::KernelScratch& scratch) {
  const QLinearChunk& c = *static_cast<const QLinearChunk*>(context);
  const int64_t blocks = (c.a->n + kQBlock - 1) / kQBlock;
  qlinear_blocks(c, i * c.blocks_per_task, qlinear_min(blocks, (i + 1) * c.blocks_per_task),
                 scratch);
}

/// A chunk for `a` on the buffers of a chunk's quantized rows (row_bytes of them), from
/// `scratch` (nullptr buffers when it has too little room; they last as long as the
/// caller's ScratchScope).
inline QLinearChunk qlinear_chunk_buffers(KernelScratch& scratch, const QLinearKernels& kernels,
                                          const QLinearArgs& a, int64_t row_bytes = kQRowBuffer) {
  int8_t* buffer = scratch.allocate<int8_t>(row_bytes);
  int32_t* sums = scratch.allocate<int32_t>(kQSumBuffer);
  float* row_scale = scratch.allocate<float>(kQMaxChunkRows);
  return QLinearChunk{&kernels, &a, 0, 0, qlinear_padded_k(a.k),
                      qlinear_block_bytes(a.k, a.groups, a.weight_bits),
                      buffer, sums, qlinear_row_sums(a.k, a.groups, a.weight_bits),
                      row_scale, 0};
}

/// Every weight block of a chunk whose rows are in its buffers (quantized, with their
/// sums, when dynamic), split over ctx's threads when the chunk has work enough (every
/// task reads the chunk's rows and writes its own columns of out, so the results do not
/// depend on the split).
inline void qlinear_chunk(KernelContext& ctx, QLinearChunk& c) {
  const QLinearArgs& a = *c.a;
  const int64_t blocks = (a.n + kQBlock - 1) / kQBlock;
  const int64_t threads = ctx.threads();
  if (threads > 1 && blocks > 1 && c.rows * a.n * a.k >= kQParallelMin) {
    // A few parts per thread: one the system delays leaves its share to the others.
    const int64_t parts = qlinear_min(blocks, 4 * threads);
    c.blocks_per_task = (blocks + parts - 1) / parts;
    c.blocks_per_task += c.blocks_per_task % 2;  // whole pairs for the prefill GEMM
    ctx.parallel_for((blocks + c.blocks_per_task - 1) / c.blocks_per_task, &qlinear_task, &c);
  } else {
    c.blocks_per_task = blocks;
    qlinear_blocks(c, 0, blocks, ctx.scratch());
  }
}

/// The product with `kernels`, chunk by chunk: each chunk's rows quantized, then its
/// weight blocks (qlinear_chunk). False, with nothing computed, when ctx's scratch slice
/// has less than kQLinearScratchBytes.
inline bool qlinear(KernelContext& ctx, const QLinearKernels& kernels, const QLinearArgs& a) {
  const int64_t chunk = qlinear_chunk_rows(a.k, a.groups, a.weight_bits, a.dynamic_input);
  ScratchScope scope(ctx.scratch());
  QLinearChunk c = qlinear_chunk_buffers(ctx.scratch(), kernels, a);
  if (c.buffer == nullptr || c.sums == nullptr || c.row_scale == nullptr) return false;
  for (c.m0 = 0; c.m0 < a.m; c.m0 += chunk) {
    c.rows = qlinear_min(chunk, a.m - c.m0);
    const bool prefill = qlinear_prefill_fits(c);
    if (a.dynamic_input) {
      for (int64_t r = 0; r < c.rows; ++r) {
        int8_t* row = c.buffer + r * c.kp;
        const float* x = a.x + (c.m0 + r) * a.k;
        int32_t* sums = c.sums + r * c.sum_stride;
        if (a.weight_bits == 4 && kernels.quantize_sums != nullptr) {
          c.row_scale[r] = kernels.quantize_sums(x, a.k, c.kp, a.k / a.groups, row, sums);
        } else {
          c.row_scale[r] = kernels.quantize(x, a.k, c.kp, row);
          if (a.weight_bits == 4) {
            group_sums(row, a.groups, a.k / a.groups, sums);
          } else if (prefill && kernels.prefill_int8_sums) {
            qlinear_span_sums(row, c.kp, sums);
          }
        }
      }
    }
    qlinear_chunk(ctx, c);
  }
  return true;
}

/// The product with the best kernels cpu_level() allows, over ctx's threads.
inline bool qlinear(KernelContext& ctx, const QLinearArgs& a) {
  return qlinear(ctx, qlinear_kernels(), a);
}

}  // namespace tailor::quantized
