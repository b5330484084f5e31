// The GEMM's one-row case (util/gemm.h), a vector times a matrix: c[j] += alpha * sum_k
// a[k] * b[k, j]. A decoding LLM runs every linear layer so, on weights far larger than
// the caches: the time is the weights' trip from memory, which goes fastest as long
// sequential runs. The micro-kernels' strips read b as 128-byte pieces of every row in
// turn; here each pass reads whole 4 KB runs of eight rows at once (eight streams the
// prefetchers follow: a 27M GPT decoded 183 tokens/s against 148 with four), into a
// 4 KB piece of c that stays in L1.
#pragma once

#include <stdint.h>

#include "kernels/optimized/util/vec.h"

namespace tailor::optimized {

// Columns of c per pass over the depth: 4 KB, a page of each row of b.
inline constexpr int64_t kGemvCols = 1024;

struct GemvAccumulate {
  template <int W>
  TL_VEC_INLINE static void run(const float* a, int64_t k, const float* b, int64_t ldb,
                                float* c, int64_t n, float alpha) {
    for (int64_t j0 = 0; j0 < n; j0 += kGemvCols) {
      const int64_t cols = n - j0 < kGemvCols ? n - j0 : kGemvCols;
      const int64_t vector_cols = cols / W * W;
      float* cj = c + j0;
      int64_t p = 0;
      for (; p + 8 <= k; p += 8) {
        const float* r = b + p * ldb + j0;
        float x[8];
        for (int q = 0; q < 8; ++q) x[q] = alpha * a[p + q];
        for (int64_t j = 0; j < vector_cols; j += W) {
          VecF<W> acc, v0, v1;
          vec_load<W>(cj + j, acc);
          for (int q = 0; q < 8; q += 2) {
            vec_load<W>(r + q * ldb + j, v0);
            vec_load<W>(r + (q + 1) * ldb + j, v1);
            acc += v0 * x[q] + v1 * x[q + 1];
          }
          vec_store<W>(cj + j, acc);
        }
        for (int64_t j = vector_cols; j < cols; ++j) {
          float sum = 0.0f;
          for (int q = 0; q < 8; ++q) sum += r[q * ldb + j] * x[q];
          cj[j] += sum;
        }
      }
      for (; p < k; ++p) {
        const float* r = b + p * ldb + j0;
        const float x = alpha * a[p];
        for (int64_t j = 0; j < vector_cols; j += W) {
          VecF<W> acc, v;
          vec_load<W>(cj + j, acc);
          vec_load<W>(r + j, v);
          acc += v * x;
          vec_store<W>(cj + j, acc);
        }
        for (int64_t j = vector_cols; j < cols; ++j) cj[j] += r[j] * x;
      }
    }
  }
};

/// c[0 .. n) += alpha * (a[0 .. k) @ b[k rows of n, row stride ldb]), at the widest
/// vectors cpu_level() allows.
inline void gemv_accumulate(const float* a, int64_t k, const float* b, int64_t ldb, float* c,
                            int64_t n, float alpha) {
  vec_run<GemvAccumulate>(a, k, b, ldb, c, n, alpha);
}

}  // namespace tailor::optimized
