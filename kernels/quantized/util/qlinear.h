// The quantized linear behind tailor_quant::linear.out (kernels/quantized/op_linear.cpp):
//
//   dynamic:     out[m, n] = x_scale[m] * sum_g w_scale[n, g] * sum_{k in g} xq[m, k] * w[n, k]
//                            + bias[n]   (each input row quantized per token, quantize_row.h)
//   weight-only: out[m, n] = w_scale[n] * sum_k x[m, k] * w[n, k] + bias[n]   (int8)
//
// Input rows go in chunks that the stack buffers hold (kQRowBuffer bytes of quantized
// inputs, so K <= 64 Ki): each chunk is quantized once, then every block of 8 weight rows
// (util/qlinear_layout.h) runs over the chunk's rows kQRows at a time, so a block's
// weights stay in L1 while all the rows use them. The block kernels are the best that
// cpu_level() allows: AVX2 on x86-64 when the CPU has it, plain C++ otherwise. Nothing
// is allocated; a call takes about 82 KB of stack.
#pragma once

#include <stdint.h>

#include "kernels/quantized/util/qlinear_avx2.h"
#include "kernels/quantized/util/qlinear_generic.h"
#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/qlinear_layout.h"
#include "kernels/quantized/util/quantize_row.h"
#include "runtime/kernel/cpu_level.h"

namespace tailor::quantized {

inline constexpr int64_t kQRowBuffer = 64 * 1024;  // quantized input bytes per chunk
inline constexpr int64_t kQSumBuffer = 4096;       // int4 group sums per chunk
inline constexpr int64_t kQMaxChunkRows = 256;

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

inline const QLinearKernels& qlinear_kernels(CpuLevel level) {
#if defined(__x86_64__)
  if (level >= CpuLevel::Avx2) return kQLinearAvx2;
#endif
  (void)level;
  return kQLinearGeneric;
}

inline int64_t qlinear_min(int64_t a, int64_t b) { return a < b ? a : b; }

// Bytes of one block of 8 weight rows.
inline int64_t qlinear_block_bytes(int64_t k, int weight_bits) {
  return weight_bits == 4 ? k * 4 : qlinear_padded_k(k) * kQBlock;
}

// Input rows per chunk (0 when not even one row fits the buffers).
inline int64_t qlinear_chunk_rows(int64_t k, int64_t groups, int weight_bits, bool dynamic) {
  if (!dynamic) return kQMaxChunkRows;
  int64_t rows = kQRowBuffer / qlinear_padded_k(k);
  if (weight_bits == 4) rows = qlinear_min(rows, kQSumBuffer / groups);
  return qlinear_min(rows, kQMaxChunkRows);
}

inline void qlinear(const QLinearArgs& a) {
  const QLinearKernels& kernels = qlinear_kernels(cpu_level());
  const int64_t kp = qlinear_padded_k(a.k);
  const int64_t block_bytes = qlinear_block_bytes(a.k, a.weight_bits);
  const int64_t chunk = qlinear_chunk_rows(a.k, a.groups, a.weight_bits, a.dynamic_input);
  int8_t buffer[kQRowBuffer];
  int32_t sums[kQSumBuffer];
  float row_scale[kQMaxChunkRows];
  float acc[kQRows * kQBlock];
  for (int64_t m0 = 0; m0 < a.m; m0 += chunk) {
    const int64_t chunk_rows = qlinear_min(chunk, a.m - m0);
    if (a.dynamic_input) {
      for (int64_t r = 0; r < chunk_rows; ++r) {
        row_scale[r] = kernels.quantize(a.x + (m0 + r) * a.k, a.k, kp, buffer + r * kp);
        if (a.weight_bits == 4) {
          group_sums(buffer + r * kp, a.groups, a.k / a.groups, sums + r * a.groups);
        }
      }
    }
    for (int64_t n0 = 0; n0 < a.n; n0 += kQBlock) {
      const uint8_t* w = static_cast<const uint8_t*>(a.w) + (n0 / kQBlock) * block_bytes;
      const int64_t valid = qlinear_min(kQBlock, a.n - n0);
      // The block's output scales (int8: one per weight row; int4 kernels apply their
      // own) and bias, padded to 8 so the epilogue below is one fixed-length loop.
      float w_scale[kQBlock];
      float bias[kQBlock];
      for (int64_t c = 0; c < kQBlock; ++c) {
        w_scale[c] = a.weight_bits == 4 || c >= valid ? 1.0f : a.scales[n0 + c];
        bias[c] = a.bias != nullptr && c < valid ? a.bias[n0 + c] : 0.0f;
      }
      for (int64_t t = 0; t < chunk_rows; t += kQRows) {
        const int rows = static_cast<int>(qlinear_min(kQRows, chunk_rows - t));
        if (!a.dynamic_input) {
          kernels.float_int8(a.x + (m0 + t) * a.k, a.k, rows, a.k,
                             reinterpret_cast<const int8_t*>(w), acc);
        } else if (a.weight_bits == 4) {
          kernels.dynamic_int4(buffer + t * kp, kp, rows, a.k, w, a.scales + n0, a.n, a.groups,
                               valid, sums + t * a.groups, acc);
        } else {
          kernels.dynamic_int8(buffer + t * kp, kp, rows, kp, reinterpret_cast<const int8_t*>(w),
                               acc);
        }
        for (int r = 0; r < rows; ++r) {
          const float x_scale = a.dynamic_input ? row_scale[t + r] : 1.0f;
          float result[kQBlock];
          for (int64_t c = 0; c < kQBlock; ++c) {
            result[c] = acc[r * kQBlock + c] * w_scale[c] * x_scale + bias[c];
          }
          __builtin_memcpy(a.out + (m0 + t + r) * a.n + n0, result, valid * sizeof(float));
        }
      }
    }
  }
}

}  // namespace tailor::quantized
