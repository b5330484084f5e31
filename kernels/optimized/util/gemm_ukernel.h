// The micro-kernel contract of the optimized GEMM (util/gemm.h), shared by every
// instruction-set level's kernels (gemm_generic.h, gemm_x86.h, gemm_neon.h).
#pragma once

#include <stdint.h>

#include "runtime/kernel/cpu_level.h"

// Loops over a tile's rows must unroll completely, so that the accumulator arrays become
// registers.
#if defined(__clang__)
#define TL_GEMM_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define TL_GEMM_UNROLL _Pragma("GCC unroll 16")
#else
#define TL_GEMM_UNROLL
#endif

namespace tailor::optimized {

// The largest tile any level uses (AVX-512: 8 x 32).
inline constexpr int64_t kGemmMaxMr = 8;
inline constexpr int64_t kGemmMaxNr = 32;

// One register tile of rows x NR (NR: the level's width):
//   c[r * ldc + j] = alpha * sum over k < kc of a[r * lda + k] * b[k * ldb + j]
//                    + (load ? c[r * ldc + j] : 0) + (add != nullptr ? add[j] : 0)
// for r < rows, j < NR. `a` is read in place (rows of stride lda); `b` holds kc rows of NR
// contiguous floats (row stride ldb: NR when packed, the matrix's own when not); `add` is
// one row of NR floats added to every row (a linear layer's bias). c is read (when load)
// and written in full: the caller points it at a scratch tile for a ragged edge.
using GemmMicroKernel = void (*)(int64_t kc, const float* a, int64_t lda, const float* b,
                                 int64_t ldb, float* c, int64_t ldc, float alpha, bool load,
                                 const float* add);

// The micro-kernels of one level: rows[i] computes i + 1 rows (i < mr), so a ragged
// bottom edge costs no wasted work.
struct GemmMicroKernels {
  CpuLevel level;
  const char* name;  // "avx512", "avx2", "neon", "generic"
  int64_t mr;        // rows of the full tile
  int64_t nr;        // columns of every tile
  GemmMicroKernel rows[kGemmMaxMr];
};

}  // namespace tailor::optimized
