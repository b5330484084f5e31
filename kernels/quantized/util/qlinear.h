// The quantized linear behind tailor_quant::linear.out (kernels/quantized/op_linear.cpp):
//
//   out[m, n] = x_scale[m] * sum_g w_scale[n, g] * sum_{k in g} xq[m, k] * w[n, k] + bias[n]
//               (dynamic: each input row quantized per token, util/quantize_row.h)
//   out[m, n] = sum_g w_scale[n, g] * sum_{k in g} x[m, k] * w[n, k] + bias[n]
//               (weight-only int8)
//
// Rows go in tiles of kQRows: each tile's rows are quantized once into a stack buffer
// (kQRowBuffer int16), then every weight row is read once per tile and dotted with all
// of them by the best dot kernel cpu_level() allows (AVX2 on x86-64 when the CPU has it,
// plain C++ otherwise). Nothing is allocated; the stack holds the 64 KB buffer.
#pragma once

#include <stdint.h>

#include "kernels/quantized/util/qlinear_avx2.h"
#include "kernels/quantized/util/qlinear_generic.h"
#include "kernels/quantized/util/qlinear_kernels.h"
#include "kernels/quantized/util/quantize_row.h"
#include "runtime/kernel/cpu_level.h"

namespace tailor::quantized {

// Quantized input values a tile may hold: 64 KB of int16 on the stack, so k <= 32768.
inline constexpr int64_t kQRowBuffer = 32 * 1024;

struct QLinearArgs {
  int64_t m = 0;                   // input rows
  int64_t n = 0;                   // output columns (weight rows)
  int64_t k = 0;                   // inputs per row
  int64_t groups = 1;              // weight scales per weight row (k / groups each)
  int weight_bits = 8;             // 8: int8 [n, k]; 4: packed [n, k / 2] (util/int4.h)
  bool dynamic_input = true;       // quantize each input row per token
  const float* x = nullptr;        // [m, k]
  const void* w = nullptr;
  const float* scales = nullptr;   // [n, groups]
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

inline int64_t qlinear_weight_row_bytes(const QLinearArgs& a) {
  return a.weight_bits == 4 ? a.k / 2 : a.k;
}

// The rows per tile the stack buffer allows (0 when even one row does not fit).
inline int64_t qlinear_tile_rows(int64_t k) {
  const int64_t fit = k > 0 ? kQRowBuffer / k : kQRows;
  return fit < kQRows ? fit : kQRows;
}

inline void qlinear(const QLinearArgs& a) {
  const QLinearKernels& kernels = qlinear_kernels(cpu_level());
  const int64_t tile = a.dynamic_input ? qlinear_tile_rows(a.k) : kQRows;  // >= 1: op checks
  const int64_t row_bytes = qlinear_weight_row_bytes(a);
  int16_t buffer[kQRowBuffer];
  float row_scale[kQRows];
  float acc[kQRows];
  for (int64_t m0 = 0; m0 < a.m; m0 += tile) {
    const int rows = static_cast<int>(a.m - m0 < tile ? a.m - m0 : tile);
    const float* x = a.x + m0 * a.k;
    if (a.dynamic_input) {
      for (int r = 0; r < rows; ++r) {
        const TokenQParams p = token_qparams(x + r * a.k, a.k);
        quantize_row_centered(x + r * a.k, a.k, p, buffer + r * a.k);
        row_scale[r] = p.scale;
      }
    }
    for (int64_t n = 0; n < a.n; ++n) {
      const uint8_t* w = static_cast<const uint8_t*>(a.w) + n * row_bytes;
      const float* scales = a.scales + n * a.groups;
      if (!a.dynamic_input) {
        kernels.float_int8(x, a.k, rows, a.k, reinterpret_cast<const int8_t*>(w), scales,
                           a.groups, acc);
      } else if (a.weight_bits == 4) {
        kernels.dynamic_int4(buffer, rows, a.k, w, scales, a.groups, acc);
      } else {
        kernels.dynamic_int8(buffer, rows, a.k, reinterpret_cast<const int8_t*>(w), scales,
                             a.groups, acc);
      }
      const float b = a.bias != nullptr ? a.bias[n] : 0.0f;
      for (int r = 0; r < rows; ++r) {
        a.out[(m0 + r) * a.n + n] = (a.dynamic_input ? acc[r] * row_scale[r] : acc[r]) + b;
      }
    }
  }
}

}  // namespace tailor::quantized
