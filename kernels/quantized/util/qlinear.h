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
#include "kernels/quantized/util/quantize_row.h"
#include "runtime/kernel/cpu_level.h"
#include "runtime/kernel/kernel_context.h"

namespace tailor::quantized {

inline constexpr int64_t kQRowBuffer = 64 * 1024;  // quantized input bytes per chunk
inline constexpr int64_t kQSumBuffer = 4096;       // int4 group sums per chunk
inline constexpr int64_t kQMaxChunkRows = 256;
// One call's scratch: the quantized rows, the int4 group sums and the row scales, each
// 64-byte aligned (as they are: the sizes are multiples of 64). The manifest's
// scratch_bytes of tailor_quant::linear.out.
inline constexpr size_t kQLinearScratchBytes =
    kQRowBuffer + kQSumBuffer * sizeof(int32_t) + kQMaxChunkRows * sizeof(float);

struct QLinearArgs {
  int64_t m = 0;                   // input rows
  int64_t n = 0;                   // outputs (weight rows)
  int64_t k = 0;                   // inputs per row
  int64_t groups = 1;              // weight scales per weight row (int8: 1)
  int weight_bits = 8;             // 8 or 4, packed as util/qlinear_layout.h says
  bool dynamic_input = true;       // quantize each input row per token
  const float* x = nullptr;        // [m, k]
  const void* w = nullptr;
  const float* scales = nullptr;   // [groups, n]
  const float* bias = nullptr;     // [n] or nullptr
  float* out = nullptr;            // [m, n]
};

// The best kernels this CPU may run (cpu_level() and cpu_has_avx512_vnni() follow the
// TL_CPU_LEVEL cap, which is how tests pick a lower set).
inline const QLinearKernels& qlinear_kernels() {
#if defined(__x86_64__)
  if (cpu_has_avx512_vnni()) return kQLinearVnni;
  if (cpu_level() >= CpuLevel::Avx2) return kQLinearAvx2;
#elif defined(__aarch64__)
  return kQLinearNeon;
#endif
  return kQLinearGeneric;
}

inline int64_t qlinear_min(int64_t a, int64_t b) { return a < b ? a : b; }

// Bytes of one block of 8 weight rows.
inline int64_t qlinear_block_bytes(int64_t k, int weight_bits) {
  return weight_bits == 4 ? k * 4 : qlinear_padded_k(k) * kQBlock;
}

// Whether weight [rows, row_bytes] with scales [groups, n] packs n rows of k values at
// `weight_bits` as util/qlinear_layout.h lays them out: one scale group for int8, whole
// int4 groups of a multiple of kInt4Group values. The linear and the embedding that reads
// a tied linear's table both check their operands with it.
inline bool qlinear_layout_fits(int64_t k, int64_t n, int64_t groups, int weight_bits,
                                int64_t rows, int64_t row_bytes) {
  const bool groups_fit = weight_bits == 8 ? groups == 1
                                           : groups > 0 && k % groups == 0 &&
                                                 (k / groups) % kInt4Group == 0;
  return k > 0 && groups_fit && rows == (n + kQBlock - 1) / kQBlock &&
         row_bytes == qlinear_block_bytes(k, weight_bits);
}

// Input rows per chunk (0 when not even one row fits the buffers).
inline int64_t qlinear_chunk_rows(int64_t k, int64_t groups, int weight_bits, bool dynamic) {
  if (!dynamic) return kQMaxChunkRows;
  int64_t rows = kQRowBuffer / qlinear_padded_k(k);
  if (weight_bits == 4) rows = qlinear_min(rows, kQSumBuffer / groups);
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
  const int8_t* buffer;     // quantized rows, kp apart (dynamic)
  const int32_t* sums;      // int4 group sums, a->groups apart
  const float* row_scale;   // per row (dynamic)
  int64_t blocks_per_task;  // of 8 weight rows
};

// Weight blocks [b0, b1) of the chunk: every row of the chunk, kQRows at a time.
inline void qlinear_blocks(const QLinearChunk& c, int64_t b0, int64_t b1) {
  const QLinearArgs& a = *c.a;
  float acc[kQRows * kQBlock];
  for (int64_t b = b0; b < b1; ++b) {
    const int64_t n0 = b * kQBlock;
    const uint8_t* w = static_cast<const uint8_t*>(a.w) + b * c.block_bytes;
    const int64_t valid = qlinear_min(kQBlock, a.n - n0);
    // The block's output scales (int8: one per weight row; int4 kernels apply their
    // own) and bias, padded to 8 so the epilogue below is one fixed-length loop.
    float w_scale[kQBlock];
    float bias[kQBlock];
    for (int64_t col = 0; col < kQBlock; ++col) {
      w_scale[col] = a.weight_bits == 4 || col >= valid ? 1.0f : a.scales[n0 + col];
      bias[col] = a.bias != nullptr && col < valid ? a.bias[n0 + col] : 0.0f;
    }
    for (int64_t t = 0; t < c.rows; t += kQRows) {
      const int rows = static_cast<int>(qlinear_min(kQRows, c.rows - t));
      if (!a.dynamic_input) {
        c.kernels->float_int8(a.x + (c.m0 + t) * a.k, a.k, rows, a.k,
                              reinterpret_cast<const int8_t*>(w), acc);
      } else if (a.weight_bits == 4) {
        c.kernels->dynamic_int4(c.buffer + t * c.kp, c.kp, rows, a.k, w, a.scales + n0, a.n,
                                a.groups, valid, c.sums + t * a.groups, acc);
      } else {
        c.kernels->dynamic_int8(c.buffer + t * c.kp, c.kp, rows, c.kp,
                                reinterpret_cast<const int8_t*>(w), acc);
      }
      for (int r = 0; r < rows; ++r) {
        const float x_scale = a.dynamic_input ? c.row_scale[t + r] : 1.0f;
        float result[kQBlock];
        for (int64_t col = 0; col < kQBlock; ++col) {
          result[col] = acc[r * kQBlock + col] * w_scale[col] * x_scale + bias[col];
        }
        __builtin_memcpy(a.out + (c.m0 + t + r) * a.n + n0, result, valid * sizeof(float));
      }
    }
  }
}

inline void qlinear_task(void* context, int64_t i, ::tailor::KernelScratch& /*unused*/) {
  const QLinearChunk& c = *static_cast<const QLinearChunk*>(context);
  const int64_t blocks = (c.a->n + kQBlock - 1) / kQBlock;
  qlinear_blocks(c, i * c.blocks_per_task, qlinear_min(blocks, (i + 1) * c.blocks_per_task));
}

/// The product with `kernels`, each chunk's weight blocks split over ctx's threads when
/// the chunk has work enough (every task reads the chunk's quantized rows and writes its
/// own columns of out, so the results do not depend on the split). False, with nothing
/// computed, when ctx's scratch slice has less than kQLinearScratchBytes.
inline bool qlinear(KernelContext& ctx, const QLinearKernels& kernels, const QLinearArgs& a) {
  const int64_t kp = qlinear_padded_k(a.k);
  const int64_t chunk = qlinear_chunk_rows(a.k, a.groups, a.weight_bits, a.dynamic_input);
  const int64_t blocks = (a.n + kQBlock - 1) / kQBlock;
  KernelScratch& scratch = ctx.scratch();
  ScratchScope scope(scratch);
  int8_t* buffer = scratch.allocate<int8_t>(kQRowBuffer);
  int32_t* sums = scratch.allocate<int32_t>(kQSumBuffer);
  float* row_scale = scratch.allocate<float>(kQMaxChunkRows);
  if (buffer == nullptr || sums == nullptr || row_scale == nullptr) return false;
  QLinearChunk c{&kernels, &a, 0, 0, kp, qlinear_block_bytes(a.k, a.weight_bits),
                 buffer, sums, row_scale, blocks};
  for (c.m0 = 0; c.m0 < a.m; c.m0 += chunk) {
    c.rows = qlinear_min(chunk, a.m - c.m0);
    if (a.dynamic_input) {
      for (int64_t r = 0; r < c.rows; ++r) {
        row_scale[r] = kernels.quantize(a.x + (c.m0 + r) * a.k, a.k, kp, buffer + r * kp);
        if (a.weight_bits == 4) {
          group_sums(buffer + r * kp, a.groups, a.k / a.groups, sums + r * a.groups);
        }
      }
    }
    const int64_t threads = ctx.threads();
    if (threads > 1 && blocks > 1 && c.rows * a.n * a.k >= kQParallelMin) {
      // A few parts per thread: one the system delays leaves its share to the others.
      const int64_t parts = qlinear_min(blocks, 4 * threads);
      c.blocks_per_task = (blocks + parts - 1) / parts;
      ctx.parallel_for((blocks + c.blocks_per_task - 1) / c.blocks_per_task, &qlinear_task, &c);
    } else {
      qlinear_blocks(c, 0, blocks);
    }
  }
  return true;
}

/// The product with the best kernels cpu_level() allows, over ctx's threads.
inline bool qlinear(KernelContext& ctx, const QLinearArgs& a) {
  return qlinear(ctx, qlinear_kernels(), a);
}

}  // namespace tailor::quantized
