// x86-64 GEMM micro-kernels for AVX2+FMA and AVX-512F. The runtime is compiled for the
// baseline (SSE2): these functions alone carry a target attribute, and util/gemm.h calls
// them only when cpu_level() says the CPU has the instructions, so no other code (and no
// CPU without them) ever runs AVX.
#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include "kernels/optimized/util/gemm_ukernel.h"

namespace tailor::optimized {

// AVX2: 6 x 16 tiles. 12 ymm accumulators (FMA latency 4 x 2 ports needs at least 8 in
// flight), two of b and one broadcast of a: 15 of the 16 registers.
template <int MR>
__attribute__((target("avx2,fma"))) void gemm_ukernel_avx2(int64_t kc, const float* a,
                                                         int64_t lda, const float* b,
                                                         int64_t ldb, float* c, int64_t ldc,
                                                         float alpha, bool load,
                                                         const float* add) {
  __m256 acc0[MR];
  __m256 acc1[MR];
  TL_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    acc0[r] = _mm256_setzero_ps();
    acc1[r] = _mm256_setzero_ps();
  }
  for (int64_t k = 0; k < kc; ++k, b += ldb) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
    TL_GEMM_UNROLL
    for (int r = 0; r < MR; ++r) {
      const __m256 ar = _mm256_broadcast_ss(a + r * lda + k);
      acc0[r] = _mm256_fmadd_ps(ar, b0, acc0[r]);
      acc1[r] = _mm256_fmadd_ps(ar, b1, acc1[r]);
    }
  }
  const __m256 va = _mm256_set1_ps(alpha);
  const __m256 add0 = add != nullptr ? _mm256_loadu_ps(add) : _mm256_setzero_ps();
  const __m256 add1 = add != nullptr ? _mm256_loadu_ps(add + 8) : _mm256_setzero_ps();
  TL_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    float* row = c + r * ldc;
    const __m256 c0 = load ? _mm256_add_ps(_mm256_loadu_ps(row), add0) : add0;
    const __m256 c1 = load ? _mm256_add_ps(_mm256_loadu_ps(row + 8), add1) : add1;
    _mm256_storeu_ps(row, _mm256_fmadd_ps(va, acc0[r], c0));
    _mm256_storeu_ps(row + 8, _mm256_fmadd_ps(va, acc1[r], c1));
  }
}

// AVX-512: 8 x 32 tiles. 16 zmm accumulators, two of b, one broadcast: 19 of 32
// registers; per k, 10 loads feed 16 FMAs.
template <int MR>
__attribute__((target("avx512f"))) void gemm_ukernel_avx512(int64_t kc, const float* a,
                                                          int64_t lda, const float* b,
                                                          int64_t ldb, float* c, int64_t ldc,
                                                          float alpha, bool load,
                                                         const float* add) {
  __m512 acc0[MR];
  __m512 acc1[MR];
  TL_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    acc0[r] = _mm512_setzero_ps();
    acc1[r] = _mm512_setzero_ps();
  }
  // Packed strips (ldb 32: prepacked weights, Winograd's streamed filters) come from
  // memory, each once a call: fetched into L2 64 rows ahead, where the hardware's
  // prefetcher fell behind (three 512-channel 7x7 Winograd layers 5-7% faster). Not for
  // a few rows, whose loads the prefetches would double (a GPT decoding: 12% slower).
  const bool strips = MR >= 4 && ldb == 32;
  for (int64_t k = 0; k < kc; ++k, b += ldb) {
    if (strips) {
      _mm_prefetch(reinterpret_cast<const char*>(b + 64 * 32), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char*>(b + 64 * 32 + 16), _MM_HINT_T1);
    }
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + 16);
    TL_GEMM_UNROLL
    for (int r = 0; r < MR; ++r) {
      const __m512 ar = _mm512_set1_ps(a[r * lda + k]);
      acc0[r] = _mm512_fmadd_ps(ar, b0, acc0[r]);
      acc1[r] = _mm512_fmadd_ps(ar, b1, acc1[r]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha);
  const __m512 add0 = add != nullptr ? _mm512_loadu_ps(add) : _mm512_setzero_ps();
  const __m512 add1 = add != nullptr ? _mm512_loadu_ps(add + 16) : _mm512_setzero_ps();
  TL_GEMM_UNROLL
  for (int r = 0; r < MR; ++r) {
    float* row = c + r * ldc;
    const __m512 c0 = load ? _mm512_add_ps(_mm512_loadu_ps(row), add0) : add0;
    const __m512 c1 = load ? _mm512_add_ps(_mm512_loadu_ps(row + 16), add1) : add1;
    _mm512_storeu_ps(row, _mm512_fmadd_ps(va, acc0[r], c0));
    _mm512_storeu_ps(row + 16, _mm512_fmadd_ps(va, acc1[r], c1));
  }
}

inline const GemmMicroKernels kGemmAvx2 = {
    CpuLevel::Avx2, "avx2", 6, 16,
    {&gemm_ukernel_avx2<1>, &gemm_ukernel_avx2<2>, &gemm_ukernel_avx2<3>,
     &gemm_ukernel_avx2<4>, &gemm_ukernel_avx2<5>, &gemm_ukernel_avx2<6>}};

inline const GemmMicroKernels kGemmAvx512 = {
    CpuLevel::Avx512, "avx512", 8, 32,
    {&gemm_ukernel_avx512<1>, &gemm_ukernel_avx512<2>, &gemm_ukernel_avx512<3>,
     &gemm_ukernel_avx512<4>, &gemm_ukernel_avx512<5>, &gemm_ukernel_avx512<6>,
     &gemm_ukernel_avx512<7>, &gemm_ukernel_avx512<8>}};

}  // namespace tailor::optimized

#endif  // __x86_64__
