// Checks and times kernels/portable/util/matmul.h outside the runtime; bench/matmul_kernel.py
// builds it with the host target's flags (or the size profile's) and runs it.
//
//   matmul_kernel check   both implementations (matmul_blocked, matmul_rowwise), every
//                         dtype, edge shapes and epilogues against a plain triple loop:
//                         exact for integers, within a few roundings for floats
//   matmul_kernel time    GFLOP/s of both on the Float shapes of the GPT (and one large
//                         product); the row-by-row loop is the kernel before the blocked one
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/portable/util/matmul.h"

using namespace tailor;
using namespace tailor::native;

namespace {

// The panel the kernels take from their scratch slice in a runtime (kMatmulPackBytes).
alignas(64) unsigned char g_panel[kMatmulPackBytes];

template <typename T>
wrap_acc_t<T>* panel() {
  return reinterpret_cast<wrap_acc_t<T>*>(g_panel);
}

uint64_t g_seed = 88172645463325252ull;
int64_t next_int(int64_t lo, int64_t hi) {  // [lo, hi]
  g_seed ^= g_seed << 13;
  g_seed ^= g_seed >> 7;
  g_seed ^= g_seed << 17;
  return lo + static_cast<int64_t>(g_seed % static_cast<uint64_t>(hi - lo + 1));
}

template <typename T>
constexpr bool kIsFloat = is_same_v<T, float> || is_same_v<T, double> || is_same_v<T, Half> ||
                          is_same_v<T, BFloat16>;

template <typename T>
T random_value() {
  if constexpr (kIsFloat<T>) {
    return T(static_cast<float>(next_int(-1000, 1000)) / 997.0f);
  } else {
    return T(next_int(0, 3));  // Int, Long sums stay in range; 8/16-bit ones wrap alike
  }
}

struct Bias {
  const char* name;
  int rows;  // 0: no bias tensor; 1 or n
  int cols;  // 1 or p
  double alpha, beta;
};

const Bias kBiases[] = {
    {"none", 0, 0, 1, 1},        {"row [p]", 1, 2, 1, 1},   {"col [n,1]", 2, 1, 1, 1},
    {"full [n,p]", 2, 2, 1, 1},  {"scalar", 1, 1, 1, 1},    {"alpha 2 beta 3", 1, 2, 2, 3},
    {"alpha 3 none", 0, 0, 3, 1}, {"beta 0", 0, 0, 1, 0},
};

int g_failures = 0;

template <typename T>
void check_one(const char* dtype, bool blocked, int64_t n, int64_t m, int64_t p,
               const Bias& bias_kind) {
  using Acc = acc_t<T>;
  const int64_t bias_rows = bias_kind.rows == 2 ? n : bias_kind.rows;
  const int64_t bias_cols = bias_kind.cols == 2 ? p : bias_kind.cols;
  T* a = static_cast<T*>(malloc(sizeof(T) * (n * m + 1)));
  T* b = static_cast<T*>(malloc(sizeof(T) * (m * p + 1)));
  T* bias = static_cast<T*>(malloc(sizeof(T) * (bias_rows * bias_cols + 1)));
  T* out = static_cast<T*>(malloc(sizeof(T) * (n * p + 1)));
  for (int64_t i = 0; i < n * m; ++i) a[i] = random_value<T>();
  for (int64_t i = 0; i < m * p; ++i) b[i] = random_value<T>();
  for (int64_t i = 0; i < bias_rows * bias_cols; ++i) bias[i] = random_value<T>();
  for (int64_t i = 0; i < n * p; ++i) out[i] = T(77);

  MatmulEpilogue<T> ep;
  ep.alpha = static_cast<Acc>(bias_kind.alpha);
  ep.beta = static_cast<Acc>(bias_kind.beta);
  if (bias_kind.rows != 0) {
    ep.bias = bias;
    ep.bias_row_stride = bias_rows == n && n > 1 ? bias_cols : 0;
    ep.bias_col_stride = bias_cols == p && p > 1 ? 1 : 0;
  }
  if (blocked) {
    matmul_blocked(a, b, out, n, m, p, ep, panel<T>());
  } else {
    matmul_rowwise(a, b, out, n, m, p, ep);
  }

  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      double want = 0, magnitude = 0;
      Acc exact = Acc(0);  // integers: the same wrapping sum in the accumulation type
      for (int64_t k = 0; k < m; ++k) {
        const double prod = static_cast<double>(static_cast<Acc>(a[i * m + k])) *
                            static_cast<double>(static_cast<Acc>(b[k * p + j]));
        want += prod;
        magnitude += fabs(prod);
        exact += static_cast<Acc>(a[i * m + k]) * static_cast<Acc>(b[k * p + j]);
      }
      want *= bias_kind.alpha;
      magnitude *= fabs(bias_kind.alpha);
      exact = static_cast<Acc>(ep.alpha * exact);
      if (ep.bias != nullptr) {
        const double bv = static_cast<double>(
            static_cast<Acc>(bias[i * ep.bias_row_stride + j * ep.bias_col_stride]));
        want += bias_kind.beta * bv;
        magnitude += fabs(bias_kind.beta * bv);
        exact = static_cast<Acc>(ep.beta * static_cast<Acc>(
                                               bias[i * ep.bias_row_stride + j * ep.bias_col_stride]) +
                                 exact);
      }
      const double got = static_cast<double>(static_cast<Acc>(out[i * p + j]));
      bool ok;
      if constexpr (kIsFloat<T>) {
        // Acc's rounding over the sum, then one rounding to T.
        const double acc_eps = sizeof(Acc) == 8 ? 1.2e-16 : 6e-8;
        const double t_eps = is_same_v<T, BFloat16> ? 4e-3 : is_same_v<T, Half> ? 5e-4 : acc_eps;
        ok = fabs(got - want) <= 2 * acc_eps * (m + 2) * magnitude + t_eps * fabs(want) +
             (is_same_v<T, Half> ? 6e-8 : 0);  // Half's subnormal step
      } else {
        ok = static_cast<Acc>(out[i * p + j]) == exact;
      }
      if (!ok) {
        if (g_failures < 20) {
          printf("FAIL %s %s n=%lld m=%lld p=%lld bias=%s at [%lld, %lld]: got %.9g want %.9g\n",
                 blocked ? "blocked" : "rowwise", dtype, (long long)n, (long long)m, (long long)p, bias_kind.name,
                 (long long)i, (long long)j, got, want);
        }
        ++g_failures;
        i = n;
        break;
      }
    }
  }
  free(a);
  free(b);
  free(bias);
  free(out);
}

template <typename T>
int64_t check_dtype(const char* dtype) {
  static const int64_t kRows[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 64};
  static const int64_t kDepths[] = {0, 1, 3, 8, 31, 255, 256, 257, 600};
  static const int64_t kCols[] = {1, 3, 7, 8, 9, 31, 32, 33, 100, 257};
  int64_t runs = 0;
  for (int64_t n : kRows) {
    for (int64_t m : kDepths) {
      for (int64_t p : kCols) {
        // Every shape with no bias; every epilogue on a quarter of them.
        for (const Bias& bias : kBiases) {
          if (&bias != &kBiases[0] && next_int(0, 3) != 0) continue;
          check_one<T>(dtype, true, n, m, p, bias);
          check_one<T>(dtype, false, n, m, p, bias);
          runs += 2;
        }
      }
    }
  }
  // Wide and deep: several column blocks; 16-bit floats past one full-depth block.
  check_one<T>(dtype, true, 5, 40, 9000, kBiases[1]);
  check_one<T>(dtype, true, 6, 1500, 20, kBiases[1]);
  check_one<T>(dtype, true, 3, 2100, 300, kBiases[5]);
  return runs + 3;
}

double now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int time_float(int reps) {
  struct Shape {
    const char* what;
    int64_t batch, n, m, p;
  };
  static const Shape kShapes[] = {
      {"GPT qkv (addmm)", 1, 64, 128, 384},    {"GPT attn proj (addmm)", 1, 64, 128, 128},
      {"GPT fc (addmm)", 1, 64, 128, 512},     {"GPT fc proj (addmm)", 1, 64, 512, 128},
      {"GPT lm_head (mm)", 1, 64, 128, 512},   {"GPT q @ k^T (bmm)", 4, 64, 32, 64},
      {"GPT att @ v (bmm)", 4, 64, 64, 32},    {"T=16 fc proj", 1, 16, 512, 128},
      {"T=1 fc proj", 1, 1, 512, 128},         {"256 x 1024 x 1024", 1, 256, 1024, 1024},
  };
  printf("%-24s %10s %10s %8s   (GFLOP/s)\n", "Float product", "row-wise", "blocked", "speedup");
  for (const Shape& s : kShapes) {
    const int64_t na = s.batch * s.n * s.m, nb = s.batch * s.m * s.p, nc = s.batch * s.n * s.p;
    float* a = static_cast<float*>(malloc(4 * na));
    float* b = static_cast<float*>(malloc(4 * nb));
    float* c = static_cast<float*>(malloc(4 * nc));
    for (int64_t i = 0; i < na; ++i) a[i] = random_value<float>();
    for (int64_t i = 0; i < nb; ++i) b[i] = random_value<float>();
    const double flops = 2.0 * s.batch * s.n * s.m * s.p;
    const int iters = flops < 4e7 ? static_cast<int>(4e7 / flops) : 1;
    double best[2] = {1e30, 1e30};
    // Interleaved, best of `reps`: a shared machine slows both alike.
    for (int rep = 0; rep < reps; ++rep) {
      for (int which = 0; which < 2; ++which) {
        const double start = now_ms();
        for (int it = 0; it < iters; ++it) {
          for (int64_t i = 0; i < s.batch; ++i) {
            const float* ai = a + i * s.n * s.m;
            const float* bi = b + i * s.m * s.p;
            float* ci = c + i * s.n * s.p;
            if (which == 0) {
              matmul_rowwise(ai, bi, ci, s.n, s.m, s.p, MatmulEpilogue<float>());
            } else {
              matmul_blocked(ai, bi, ci, s.n, s.m, s.p, MatmulEpilogue<float>(), panel<float>());
            }
          }
        }
        const double ms = (now_ms() - start) / iters;
        if (ms < best[which]) best[which] = ms;
      }
    }
    printf("%-24s %10.2f %10.2f %7.1fx   b, n, m, p = %lld, %lld, %lld, %lld\n", s.what,
           flops / best[0] / 1e6, flops / best[1] / 1e6, best[0] / best[1],
           (long long)s.batch, (long long)s.n, (long long)s.m, (long long)s.p);
    free(a);
    free(b);
    free(c);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "check";
  if (strcmp(mode, "time") == 0) {
    return time_float(argc > 2 ? atoi(argv[2]) : 20);
  }
  int64_t runs = 0;
  runs += check_dtype<float>("Float");
  runs += check_dtype<double>("Double");
  runs += check_dtype<Half>("Half");
  runs += check_dtype<BFloat16>("BFloat16");
  runs += check_dtype<uint8_t>("Byte");
  runs += check_dtype<int8_t>("Char");
  runs += check_dtype<int16_t>("Short");
  runs += check_dtype<int32_t>("Int");
  runs += check_dtype<int64_t>("Long");
  printf("%lld products checked, %d failed\n", (long long)runs, g_failures);
  return g_failures == 0 ? 0 : 1;
}
