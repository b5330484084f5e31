// Checks and times the optimized GEMM (kernels/optimized/util/gemm.h) outside the
// runtime, at every instruction-set level this CPU runs; bench/gemm.py builds and runs it.
//
//   gemm check [quick]  every level against a double-precision triple loop: ragged
//                       sizes around each level's tile and depth block, strided rows,
//                       every bias broadcast, alpha and beta, b packed per call and
//                       prepacked (util/gemm_prepack.h); c's row padding must stay
//                       untouched. Exit 1 on a mismatch.
//   gemm time [REPS]    the FMA peak of each level (a loop of independent multiply-adds),
//                       then GFLOP/s of each level, and of the portable matmul, on a
//                       256^3 product and the GPT's shapes, best of REPS runs, and the
//                       best level with b prepacked once (a constant weight's path).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/optimized/util/gemm.h"
#include "kernels/optimized/util/gemm_prepack.h"
#include "kernels/portable/util/matmul.h"
#include "bench/bench_util.h"
#include "runtime/kernel/thread_pool.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace tailor;
using namespace tailor::optimized;

using bench::now;
using bench::random_float;

namespace {

// The levels this CPU runs, lowest first (cpu_level() with no cap is the highest).
int levels(CpuLevel* out) {
  int count = 0;
  for (int i = 0; i <= static_cast<int>(cpu_level_detected()); ++i) {
    const CpuLevel level = static_cast<CpuLevel>(i);
    // A level without micro-kernels of its own on this architecture is not listed.
    if (&gemm_micro_kernels(level) != (count > 0 ? &gemm_micro_kernels(out[count - 1]) : nullptr)) {
      out[count++] = level;
    }
  }
  return count;
}

struct BiasKind {
  const char* name;
  int rows;  // 0: no bias; 1 or 2 (= m)
  int cols;  // 1 or 2 (= n)
  float alpha, beta;
};

const BiasKind kBiases[] = {
    {"none", 0, 0, 1, 1},       {"row [n]", 1, 2, 1, 1},   {"col [m,1]", 2, 1, 1, 1},
    {"full [m,n]", 2, 2, 1, 1}, {"scalar", 1, 1, 1, 1},    {"alpha 2 beta 0.5", 1, 2, 2, 0.5f},
    {"alpha -3", 0, 0, -3, 1},  {"beta 0", 2, 2, 1, 0},
};

int g_checked = 0;
int g_failed = 0;

// A context on `pool`'s threads with their scratch slices.
KernelContext context_on(const ThreadPool& pool) {
  KernelContext ctx;
  ctx.set_parallel(pool.parallel());
  ctx.set_scratch(bench::scratch_slices<kGemmScratchBytes>());
  return ctx;
}

// With `ctx`, `batch` products (a, b, c each advanced by one matrix) through gemm_batch()
// on ctx's threads; else one through gemm().
// A prepacked copy of b[k, n] (row stride ldb) for `uk`, or nullptr when it is empty.
void* prepack_b(const GemmMicroKernels& uk, const float* b, int64_t ldb, int64_t k, int64_t n) {
  const size_t bytes = gemm_packed_b_bytes(k, n, uk.nr);
  if (bytes == 0) return nullptr;
  void* packed = aligned_alloc(kPrepackAlignment, (bytes + 63) / 64 * 64);
  gemm_pack_whole_b(b, ldb, k, n, uk.nr, packed);
  return packed;
}

// `prepacked`: b packed once beforehand (batch 1), as a constant weight is at load.
void check_one(const GemmMicroKernels& uk, int64_t m, int64_t n, int64_t k, int64_t pad,
               const BiasKind& kind, KernelContext* ctx = nullptr, int64_t batch = 1,
               bool prepacked = false) {
  const int64_t lda = k + pad;
  const int64_t ldb = n + pad;
  const int64_t ldc = n + pad;
  float* a_all = static_cast<float*>(malloc(sizeof(float) * (batch * m * lda + 1)));
  float* b_all = static_cast<float*>(malloc(sizeof(float) * (batch * k * ldb + 1)));
  float* c_all = static_cast<float*>(malloc(sizeof(float) * (batch * m * ldc + 1)));
  float* bias = static_cast<float*>(malloc(sizeof(float) * (m * n + 1)));
  for (int64_t i = 0; i < batch * m * lda; ++i) a_all[i] = random_float();
  for (int64_t i = 0; i < batch * k * ldb; ++i) b_all[i] = random_float();
  for (int64_t i = 0; i < batch * m * ldc; ++i) c_all[i] = 77.0f;  // padding must keep it
  for (int64_t i = 0; i < m * n; ++i) bias[i] = random_float();
  if (kind.beta == 0.0f) bias[0] = NAN;  // beta 0: bias is not read

  GemmArgs g = gemm_args(m, n, k, a_all, b_all, c_all);
  g.lda = lda;  // rows padded past their length: the strides are honoured
  g.ldb = ldb;
  g.ldc = ldc;
  g.alpha = kind.alpha;
  g.beta = kind.beta;
  const int64_t bias_rows = kind.rows == 2 ? m : kind.rows;
  const int64_t bias_cols = kind.cols == 2 ? n : kind.cols;
  if (kind.rows != 0 && kind.beta != 0.0f) {
    g.bias = bias;
    g.bias_row_stride = bias_rows == m && m > 1 ? bias_cols : 0;
    g.bias_col_stride = bias_cols == n && n > 1 ? 1 : 0;
  }
  void* packed = prepacked ? prepack_b(uk, b_all, ldb, k, n) : nullptr;
  g.packed_b = gemm_packed_b(packed, b_all, k, n, uk.nr);
  const bool done = ctx != nullptr ? gemm_batch(*ctx, uk, g, batch, m * lda, k * ldb, m * ldc)
                                    : gemm(uk, g, bench::scratch_slices<kGemmScratchBytes>()[0]);
  if (!done) fprintf(stderr, "gemm: the scratch slice is too small\n");

  bool ok = done;
  for (int64_t row = 0; row < batch * m && ok; ++row) {  // every row of every product
    const int64_t t = row / m;
    const int64_t i = row % m;
    const float* a = a_all + t * m * lda;
    const float* b = b_all + t * k * ldb;
    const float* c = c_all + t * m * ldc;
    for (int64_t j = 0; j < ldc && ok; ++j) {
      const float got = c[i * ldc + j];
      if (j >= n) {
        ok = got == 77.0f;
        continue;
      }
      double sum = 0;
      double mag = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += static_cast<double>(a[i * lda + p]) * b[p * ldb + j];
        mag += fabs(static_cast<double>(a[i * lda + p]) * b[p * ldb + j]);
      }
      double want = kind.alpha * sum;
      mag = fabs(kind.alpha) * mag;
      if (g.bias != nullptr) {
        const double add = kind.beta * g.bias[i * g.bias_row_stride + j * g.bias_col_stride];
        want += add;
        mag += fabs(add);
      }
      // The rounding bound of a float sum of k products (k + 3 roundings of 2^-24 each,
      // relative to the sum of magnitudes): dropping or repeating a single product
      // exceeds it by orders of magnitude.
      ok = fabs(got - want) <= (k + 3) * 6e-8 * mag + 1e-30;
      if (!ok) {
        printf("FAILED %s%s m=%lld n=%lld k=%lld pad=%lld bias %s threads %d: c[%lld][%lld, "
               "%lld] = %.8g, want %.8g\n",
               uk.name, prepacked ? " prepacked" : "", static_cast<long long>(m), static_cast<long long>(n),
               static_cast<long long>(k), static_cast<long long>(pad), kind.name,
               ctx != nullptr ? ctx->threads() : 1, static_cast<long long>(t),
               static_cast<long long>(i), static_cast<long long>(j), got, want);
      }
    }
  }
  ++g_checked;
  g_failed += ok ? 0 : 1;
  free(packed);
  free(a_all);
  free(b_all);
  free(c_all);
  free(bias);
}

int check(bool quick) {
  // Around every level's tile (1..8 rows, 8..32 columns), the unpacked/packed switch
  // (packed from m = 16 MR: 64, 96, 128), the 64-column block and the 256 depth block.
  const int64_t full_mn[] = {0, 1, 2, 3, 5, 6, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33,
                             47, 63, 64, 65, 100, 129, 257};
  const int64_t full_k[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 255, 256, 257, 300, 513};
  const int64_t quick_mn[] = {0, 1, 3, 7, 8, 9, 16, 17, 33, 65, 129};
  const int64_t quick_k[] = {0, 1, 5, 8, 64, 257};
  const int64_t* mn = quick ? quick_mn : full_mn;
  const int64_t* ks = quick ? quick_k : full_k;
  const int count_mn = quick ? sizeof(quick_mn) / 8 : sizeof(full_mn) / 8;
  const int count_k = quick ? sizeof(quick_k) / 8 : sizeof(full_k) / 8;
  CpuLevel list[3];
  const int count = levels(list);
  for (int l = 0; l < count; ++l) {
    const GemmMicroKernels& uk = gemm_micro_kernels(list[l]);
    const int before = g_checked;
    int turn = 0;
    for (int x = 0; x < count_mn; ++x) {
      for (int y = 0; y < count_mn; ++y) {
        for (int z = 0; z < count_k; ++z, ++turn) {
          const BiasKind& kind = kBiases[turn % (sizeof(kBiases) / sizeof(kBiases[0]))];
          check_one(uk, mn[x], mn[y], ks[z], turn % 3 == 0 ? 3 : 0, kind);
          check_one(uk, mn[x], mn[y], ks[z], turn % 3 == 1 ? 3 : 0, kind, nullptr, 1, true);
        }
      }
    }
    // Split over threads (gemm_batch): by column strips, by row tiles when c is narrow,
    // whole products of a batch; each above the size that goes parallel.
    const int64_t parallel[][4] = {{257, 65, 33, 1}, {7, 257, 300, 1}, {129, 7, 600, 1},
                                   {65, 129, 64, 3}, {64, 32, 64, 5}, {1, 1000, 300, 2}};
    for (int threads = 2; threads <= 3; ++threads) {
      ThreadPool pool(threads);
      KernelContext ctx = context_on(pool);
      for (const auto& s : parallel) {
        for (int b = 0; b < 4; ++b) {
          check_one(uk, s[0], s[1], s[2], b == 1 ? 3 : 0, kBiases[b * 2 + 1], &ctx, s[3]);
          if (s[3] == 1) {
            check_one(uk, s[0], s[1], s[2], b == 1 ? 3 : 0, kBiases[b * 2 + 1], &ctx, 1, true);
          }
        }
      }
    }
    printf("%s (%lld x %lld tiles): %d products checked\n", uk.name,
           static_cast<long long>(uk.mr), static_cast<long long>(uk.nr), g_checked - before);
  }
  printf("%d products checked, %d failed\n", g_checked, g_failed);
  return g_failed == 0 ? 0 : 1;
}

// --- FMA peak: 12 independent chains of multiply-adds per level ---

constexpr int kChains = 12;

double peak_generic(int64_t iters) {
  GemmVec4 acc[kChains];
  for (int r = 0; r < kChains; ++r) acc[r] = GemmVec4{} + static_cast<float>(r);
  const GemmVec4 x = GemmVec4{} + 0.999999f;
  const GemmVec4 y = GemmVec4{} + 1e-6f;
  for (int64_t i = 0; i < iters; ++i) {
    TL_GEMM_UNROLL
    for (int r = 0; r < kChains; ++r) acc[r] = acc[r] * x + y;
  }
  float s = 0;
  for (int r = 0; r < kChains; ++r) s += acc[r][0];
  return s;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) double peak_avx2(int64_t iters) {
  __m256 acc[kChains];
  for (int r = 0; r < kChains; ++r) acc[r] = _mm256_set1_ps(static_cast<float>(r));
  const __m256 x = _mm256_set1_ps(0.999999f);
  const __m256 y = _mm256_set1_ps(1e-6f);
  for (int64_t i = 0; i < iters; ++i) {
    TL_GEMM_UNROLL
    for (int r = 0; r < kChains; ++r) acc[r] = _mm256_fmadd_ps(acc[r], x, y);
  }
  float s = 0;
  for (int r = 0; r < kChains; ++r) s += _mm256_cvtss_f32(acc[r]);
  return s;
}

__attribute__((target("avx512f"))) double peak_avx512(int64_t iters) {
  __m512 acc[kChains];
  for (int r = 0; r < kChains; ++r) acc[r] = _mm512_set1_ps(static_cast<float>(r));
  const __m512 x = _mm512_set1_ps(0.999999f);
  const __m512 y = _mm512_set1_ps(1e-6f);
  for (int64_t i = 0; i < iters; ++i) {
    TL_GEMM_UNROLL
    for (int r = 0; r < kChains; ++r) acc[r] = _mm512_fmadd_ps(acc[r], x, y);
  }
  float s = 0;
  for (int r = 0; r < kChains; ++r) s += _mm512_cvtss_f32(acc[r]);
  return s;
}
#endif

// GFLOP/s of the level's multiply-add loop (an FMA counts 2 flops; SSE2's separate
// multiply and add count 1 each), best of `reps`.
double fma_peak(CpuLevel level, int reps) {
  const int64_t iters = 2000000;
  int width = 4;
  double (*loop)(int64_t) = &peak_generic;
#if defined(__x86_64__)
  if (level == CpuLevel::Avx2) {
    width = 8;
    loop = &peak_avx2;
  } else if (level == CpuLevel::Avx512) {
    width = 16;
    loop = &peak_avx512;
  }
#endif
  double best = 1e30;
  volatile double sink = 0;
  for (int rep = 0; rep < reps; ++rep) {
    const double start = now();
    sink = sink + loop(iters);
    best = fmin(best, now() - start);
  }
  return 2.0 * width * kChains * iters / best / 1e9;
}

struct Shape {
  const char* name;
  int64_t m, n, k;
};

// GFLOP/s of `uk` (nullptr: the portable matmul), on ctx's threads when given.
double time_gemm(const GemmMicroKernels* uk, const Shape& s, int reps,
                 KernelContext* ctx = nullptr, bool prepacked = false) {
  float* a = static_cast<float*>(malloc(sizeof(float) * s.m * s.k));
  float* b = static_cast<float*>(malloc(sizeof(float) * s.k * s.n));
  float* c = static_cast<float*>(malloc(sizeof(float) * s.m * s.n));
  for (int64_t i = 0; i < s.m * s.k; ++i) a[i] = random_float();
  for (int64_t i = 0; i < s.k * s.n; ++i) b[i] = random_float();
  GemmArgs g;
  g.m = s.m;
  g.n = s.n;
  g.k = s.k;
  g.a = a;
  g.lda = s.k;
  g.b = b;
  g.ldb = s.n;
  g.c = c;
  g.ldc = s.n;
  void* packed = prepacked ? prepack_b(*uk, b, s.n, s.k, s.n) : nullptr;
  g.packed_b = gemm_packed_b(packed, b, s.k, s.n, uk != nullptr ? uk->nr : 0);
  // Enough calls per timing that the clock's resolution does not matter.
  const double flops = 2.0 * s.m * s.n * s.k;
  const int inner = static_cast<int>(fmax(1.0, 2e7 / flops));
  double best = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    const double start = now();
    for (int i = 0; i < inner; ++i) {
      if (ctx != nullptr) {
        gemm_batch(*ctx, *uk, g, 1, 0, 0, 0);
      } else if (uk != nullptr) {
        gemm(*uk, g, bench::scratch_slices<kGemmScratchBytes>()[0]);
      } else {
        native::matmul(bench::scratch_slices<kGemmScratchBytes>()[0], a, b, c, s.m, s.k, s.n);
      }
    }
    best = fmin(best, (now() - start) / inner);
  }
  free(packed);
  free(a);
  free(b);
  free(c);
  return flops / best / 1e9;
}

int time_all(int reps) {
  CpuLevel list[3];
  const int count = levels(list);
  double peak = 0;
  printf("FMA peak of one core, measured (GFLOP/s):");
  for (int l = 0; l < count; ++l) {
    const double p = fma_peak(list[l], reps);
    peak = fmax(peak, p);
    printf(" %s %.1f", gemm_micro_kernels(list[l]).name, p);
  }
  printf("\npeak %.1f\n\n", peak);

  const Shape shapes[] = {
      {"256x256x256", 256, 256, 256},      {"512x512x512", 512, 512, 512},
      {"1024x1024x1024", 1024, 1024, 1024},
      {"GPT qkv 64x384x128", 64, 384, 128}, {"GPT fc 64x512x128", 64, 512, 128},
      {"GPT proj 64x128x512", 64, 128, 512}, {"GPT attn 64x128x128", 64, 128, 128},
      {"GPT scores 64x64x32", 64, 64, 32},  {"GPT values 64x32x64", 64, 32, 64},
      {"GPT T=1 fc 1x512x128", 1, 512, 128}, {"GPT T=16 fc 16x512x128", 16, 512, 128},
  };
  printf("| shape (m x n x k) | portable |");
  for (int l = 0; l < count; ++l) printf(" %s |", gemm_micro_kernels(list[l]).name);
  const char* top = gemm_micro_kernels(list[count - 1]).name;
  printf(" best / peak | %s, 2 threads | %s, b prepacked | prepacked / per call |\n|---|---:|",
         top, top);
  for (int l = 0; l < count; ++l) printf("---:|");
  printf("---:|---:|---:|---:|\n");
  ThreadPool pool(2);
  KernelContext ctx = context_on(pool);
  for (const Shape& s : shapes) {
    printf("| %s | %.1f |", s.name, time_gemm(nullptr, s, reps));
    double best = 0;
    for (int l = 0; l < count; ++l) {
      const double r = time_gemm(&gemm_micro_kernels(list[l]), s, reps);
      best = fmax(best, r);
      printf(" %.1f |", r);
    }
    printf(" %.0f%% |", 100.0 * best / peak);
    // More runs: the second core is often busy with other work on a shared machine.
    printf(" %.1f |", time_gemm(&gemm_micro_kernels(list[count - 1]), s, 5 * reps, &ctx));
    // The same level again beside its prepacked run: a ratio of two runs taken together.
    const GemmMicroKernels* uk = &gemm_micro_kernels(list[count - 1]);
    const double per_call = time_gemm(uk, s, reps);
    const double packed = time_gemm(uk, s, reps, nullptr, true);
    printf(" %.1f | %.2fx |\n", packed, per_call / packed);
    fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "check") == 0) {
    return check(argc >= 3 && strcmp(argv[2], "quick") == 0);
  }
  if (argc >= 2 && strcmp(argv[1], "time") == 0) {
    return time_all(argc >= 3 ? atoi(argv[2]) : 10);
  }
  fprintf(stderr, "usage: gemm check [quick] | time [REPS]\n");
  return 2;
}
