// One quantized linear's operands for bench/qlinear.cpp: random inputs and weights packed
// as kernels/quantized/util/qlinear_layout.h says, and the kernel sets this CPU runs.
#pragma once

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_util.h"
#include "kernels/quantized/util/qlinear.h"

// Inside the kernels' namespace, so their names read as in the kernels.
namespace tailor::quantized::qlinear_bench {

inline int random_int(int lo, int hi) {
  return lo + static_cast<int>(bench::random_bits() % (hi - lo + 1));
}

// The kernel sets this CPU runs, plain C++ first.
inline int kernel_sets(const QLinearKernels** out) {
  int count = 0;
  out[count++] = &kQLinearGeneric;
#if defined(__x86_64__)
  if (cpu_level_detected() >= CpuLevel::Avx2) out[count++] = &kQLinearAvx2;
  if (cpu_has_avx512_vnni()) out[count++] = &kQLinearVnni;
#elif defined(__aarch64__)
  out[count++] = &kQLinearNeon;
#endif
  return count;
}

enum class Scheme { Int8Weight, Dynamic8, Dynamic4 };
inline const char* const kSchemeNames[] = {"int8-weight", "8da8w", "8da4w"};

// One quantized linear's operands, with random weights packed as util/qlinear_layout.h
// says (int8 over the whole range, -128 included; int4 -8..7, each group's scales after
// its weights). `scales_apart`: int4 scales [groups, n] beside blocks of weights only, the
// layout before (for another revision's kernels, bench/qlinear_against.cpp).
struct Problem {
  QLinearArgs a;
  float* x;
  uint8_t* w;
  float* scales;
  float* bias;
  int64_t w_bytes, s_bytes;  // what a call reads: the weights (int4: with their scales), scales

  Problem(Scheme scheme, int64_t m, int64_t n, int64_t k, int64_t groups,
          bool scales_apart = false) {
    const int bits = scheme == Scheme::Dynamic4 ? 4 : 8;
    const bool in_blocks = bits == 4 && !scales_apart;
    const int64_t blocks = (n + kQBlock - 1) / kQBlock;
    const int64_t size = k / groups;
    const int64_t group_bytes = in_blocks ? int4_group_bytes(size) : size * 4;
    const int64_t block_bytes = bits == 4 ? groups * group_bytes : qlinear_block_bytes(k, 1, 8);
    w_bytes = blocks * block_bytes;
    s_bytes = in_blocks ? 0 : 4 * groups * n;
    x = static_cast<float*>(malloc(sizeof(float) * m * k + 1));
    w = static_cast<uint8_t*>(calloc(w_bytes + 1, 1));
    scales = static_cast<float*>(malloc(sizeof(float) * groups * n + 1));
    bias = static_cast<float*>(malloc(sizeof(float) * n + 1));
    for (int64_t i = 0; i < m * k; ++i) x[i] = bench::random_float();
    for (int64_t i = 0; i < groups * n; ++i) {
      scales[i] = 0.001f + fabsf(bench::random_float()) * 0.01f;
    }
    for (int64_t i = 0; i < n; ++i) bias[i] = bench::random_float();
    for (int64_t row = 0; row < n; ++row) {
      uint8_t* block = w + (row / kQBlock) * block_bytes;
      const int64_t lane = row % kQBlock;
      for (int64_t i = 0; i < k; ++i) {
        if (bits == 8) {
          block[(i / 4) * 32 + lane * 4 + i % 4] = static_cast<uint8_t>(random_int(-128, 127));
        } else {
          const int shift = i % 8 < 4 ? 0 : 4;
          const int nibble = random_int(0, 15);
          const int64_t at = (i / size) * group_bytes + (i % size) / 8 * 32 + lane * 4 + i % 4;
          block[at] |= static_cast<uint8_t>(nibble << shift);
        }
      }
      for (int64_t g = 0; in_blocks && g < groups; ++g) {
        memcpy(block + g * group_bytes + size * 4 + lane * 4, scales + g * n + row, 4);
      }
    }
    a.m = m;
    a.n = n;
    a.k = k;
    a.groups = groups;
    a.weight_bits = bits;
    a.dynamic_input = scheme != Scheme::Int8Weight;
    a.x = x;
    a.w = w;
    a.scales = scales;
    a.bias = bias;
  }
  ~Problem() {
    free(x);
    free(w);
    free(scales);
    free(bias);
  }
};

}  // namespace tailor::quantized::qlinear_bench
