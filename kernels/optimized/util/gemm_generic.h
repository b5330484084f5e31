// The baseline GEMM micro-kernel in GNU C++ vector types (no intrinsics): SSE2 code on
// x86-64 without -march, NEON or scalar code elsewhere, whatever the target compiles
// 16-byte vectors to. 4 x 8 tiles: 8 accumulators, which SSE2's 16 registers hold
// beside the two vectors of b and a broadcast. No FMA at this level (SSE2 has none).
#pragma once

#include "kernels/optimized/util/gemm_ukernel.h"

namespace tailor::optimized {

typedef float GemmVec4 __attribute__((vector_size(16)));

inline GemmVec4 gemm_load4(const float* p) {
  GemmVec4 v;
  __builtin_memcpy(&v, p, sizeof(v));  // unaligned: becomes one movups / ldr q
  return v;
}

inline void gemm_store4(float* p, GemmVec4 v) { __builtin_memcpy(p, &v, sizeof(v)); }

template <int MR>
void gemm_ukernel_generic(int64_t kc, const float* a, int64_t lda, const float* b,
                          int64_t ldb, float* c, int64_t ldc, float alpha, bool load,
                          const float* add) {
  GemmVec4 acc0[MR];
  GemmVec4 acc1[MR];
  TL_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    acc0[r] = GemmVec4{};
    acc1[r] = GemmVec4{};
  }
  for (int64_t k = 0; k < kc; ++k, b += ldb) {
    const GemmVec4 b0 = gemm_load4(b);
    const GemmVec4 b1 = gemm_load4(b + 4);
    TL_GEMM_UNROLL
    for (int r = 0; r < MR; ++r) {
      const float ar = a[r * lda + k];
      acc0[r] += ar * b0;
      acc1[r] += ar * b1;
    }
  }
  TL_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    GemmVec4 c0 = alpha * acc0[r];
    GemmVec4 c1 = alpha * acc1[r];
    if (load) {
      c0 += gemm_load4(c + r * ldc);
      c1 += gemm_load4(c + r * ldc + 4);
    }
    if (add != nullptr) {
      c0 += gemm_load4(add);
      c1 += gemm_load4(add + 4);
    }
    gemm_store4(c + r * ldc, c0);
    gemm_store4(c + r * ldc + 4, c1);
  }
}

inline const GemmMicroKernels kGemmGeneric = {
    CpuLevel::Baseline, "generic", 4, 8,
    {&gemm_ukernel_generic<1>, &gemm_ukernel_generic<2>, &gemm_ukernel_generic<3>,
     &gemm_ukernel_generic<4>}};

}  // namespace tailor::optimized
