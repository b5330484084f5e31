// The aarch64 GEMM micro-kernel in NEON intrinsics (NEON is part of the aarch64
// baseline: no dispatch needed). 8 x 8 tiles: 16 accumulators, 8 registers holding four
// consecutive k of each row of a, 2 of b: 26 of the 32 vector registers. Each
// multiply-add takes its a value from a lane (fmla by element), so a is read with one
// 16-byte load per row per 4 k instead of a broadcast per k.
#pragma once

#if defined(__aarch64__)

#include <arm_neon.h>

#include "kernels/optimized/util/gemm_ukernel.h"

namespace tailor::optimized {

template <int MR>
void gemm_ukernel_neon(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb,
                       float* c, int64_t ldc, float alpha, bool load, const float* add) {
  float32x4_t acc0[MR];
  float32x4_t acc1[MR];
  TL_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    acc0[r] = vdupq_n_f32(0.0f);
    acc1[r] = vdupq_n_f32(0.0f);
  }
  int64_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    float32x4_t ak[MR];
    TL_GEMM_UNROLL
    for (int r = 0; r < MR; ++r) {
      ak[r] = vld1q_f32(a + r * lda + k);
    }
    // The lane must be a constant: one step per lane.
#define TL_GEMM_NEON_STEP(lane)                                  \
  {                                                              \
    const float32x4_t b0 = vld1q_f32(b);                         \
    const float32x4_t b1 = vld1q_f32(b + 4);                     \
    b += ldb;                                                    \
    TL_GEMM_UNROLL                                               \
    for (int r = 0; r < MR; ++r) {                               \
      acc0[r] = vfmaq_laneq_f32(acc0[r], b0, ak[r], lane);       \
      acc1[r] = vfmaq_laneq_f32(acc1[r], b1, ak[r], lane);       \
    }                                                            \
  }
    TL_GEMM_NEON_STEP(0)
    TL_GEMM_NEON_STEP(1)
    TL_GEMM_NEON_STEP(2)
    TL_GEMM_NEON_STEP(3)
#undef TL_GEMM_NEON_STEP
  }
  for (; k < kc; ++k, b += ldb) {
    const float32x4_t b0 = vld1q_f32(b);
    const float32x4_t b1 = vld1q_f32(b + 4);
    TL_GEMM_UNROLL
    for (int r = 0; r < MR; ++r) {
      acc0[r] = vfmaq_n_f32(acc0[r], b0, a[r * lda + k]);
      acc1[r] = vfmaq_n_f32(acc1[r], b1, a[r * lda + k]);
    }
  }
  TL_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    float* row = c + r * ldc;
    float32x4_t c0 = vmulq_n_f32(acc0[r], alpha);
    float32x4_t c1 = vmulq_n_f32(acc1[r], alpha);
    if (load) {
      c0 = vaddq_f32(c0, vld1q_f32(row));
      c1 = vaddq_f32(c1, vld1q_f32(row + 4));
    }
    if (add != nullptr) {
      c0 = vaddq_f32(c0, vld1q_f32(add));
      c1 = vaddq_f32(c1, vld1q_f32(add + 4));
    }
    vst1q_f32(row, c0);
    vst1q_f32(row + 4, c1);
  }
}

inline const GemmMicroKernels kGemmNeon = {
    CpuLevel::Baseline, "neon", 8, 8,
    {&gemm_ukernel_neon<1>, &gemm_ukernel_neon<2>, &gemm_ukernel_neon<3>,
     &gemm_ukernel_neon<4>, &gemm_ukernel_neon<5>, &gemm_ukernel_neon<6>,
     &gemm_ukernel_neon<7>, &gemm_ukernel_neon<8>}};

}  // namespace tailor::optimized

#endif  // __aarch64__
