// Checks and times the quantized linear (kernels/quantized/util/qlinear.h) outside the
// runtime, with every kernel set this CPU runs; bench/qlinear.py builds and runs it.
//
//   qlinear check   every kernel set against the plain C++ one (int8 dynamic products are
//                   integers, so equal; int4 and weight-only within float rounding), over
//                   ragged shapes around the 8-row blocks, the 4-row kernels and the
//                   groups; then every set split over 2 and 3 threads against itself on
//                   one (equal: each output is computed the same way). Exit 1 on a mismatch.
//   qlinear time [REPS]  microseconds per call of each set on the GPT's shapes, at T=1 and
//                   T=64, then the best set on 2 threads, best of REPS runs.
//   qlinear shape M N K [REPS] [GROUP]  microseconds and GMAC/s of one M x N x K product
//                   with each set: 8da8w, or 8da4w in groups of GROUP inputs.
//   qlinear stream [REPS] [THREADS] [TOKENS]  every 8da4w linear of a SmolLM-135M-shaped
//                   decoder (30 layers and the int8 output projection, 95 MB: more than
//                   the caches hold) on TOKENS input rows (default 1; the projection on
//                   the last only, as tailor/llm's decoders do), with the best set;
//                   ms per pass and GB/s of weights, next to a plain sum of as many bytes.
//   qlinear decode [REPS] [LABEL]  one-row (decode) calls of 8da4w and 8da8w on a
//                   Llama-3.2-1B-shaped decoder's linears, with each set that has decode
//                   kernels (built with TL_QLINEAR_AGAINST: also another revision's, named
//                   LABEL): GB/s of weights and scales read, from memory (copies of the
//                   matrix, more than the caches hold, called in turn) and from cache (one
//                   copy again and again), best of REPS passes in on-CPU time; then a plain
//                   sum's rate over as many bytes.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/quantized/util/qlinear.h"
#include "bench/bench_util.h"
#include "bench/qlinear_against.h"
#include "bench/qlinear_problem.h"
#include "runtime/kernel/thread_pool.h"

using namespace tailor;
using namespace tailor::quantized;
using namespace tailor::quantized::qlinear_bench;

using bench::now;
using bench::random_bits;
using bench::random_float;

namespace {

int g_checked = 0;
int g_failed = 0;

// A context on `parallel`'s threads (nullptr: one) with their scratch slices.
KernelContext context_on(const Parallel* parallel) {
  KernelContext ctx;
  ctx.set_parallel(parallel);
  ctx.set_scratch(bench::scratch_slices<kQLinearScratchBytes>());
  return ctx;
}

// Runs `p` with `kernels` into a fresh output; the caller frees it.
float* run(KernelContext& ctx, const QLinearKernels& kernels, Problem& p) {
  float* out = static_cast<float*>(malloc(sizeof(float) * p.a.m * p.a.n + 1));
  p.a.out = out;
  if (!qlinear(ctx, kernels, p.a)) fprintf(stderr, "qlinear: the scratch slice is too small\n");
  return out;
}

// got against want: `exact`, or within what summing k terms in another order changes
// (relative to the largest output; one term dropped or repeated is far above it).
void compare(const char* what, const Problem& p, const float* got, const float* want,
             bool exact) {
  float largest = 0.0f;
  for (int64_t i = 0; i < p.a.m * p.a.n; ++i) largest = fmaxf(largest, fabsf(want[i]));
  const float tolerance = exact ? 0.0f : 1e-5f * (1.0f + largest) * sqrtf(p.a.k);
  bool ok = true;
  for (int64_t i = 0; i < p.a.m * p.a.n && ok; ++i) {
    ok = fabsf(got[i] - want[i]) <= tolerance;
    if (!ok) {
      printf("FAILED %s m=%lld n=%lld k=%lld groups=%lld: out[%lld] = %.8g, want %.8g\n", what,
             static_cast<long long>(p.a.m), static_cast<long long>(p.a.n),
             static_cast<long long>(p.a.k), static_cast<long long>(p.a.groups),
             static_cast<long long>(i), got[i], want[i]);
    }
  }
  ++g_checked;
  g_failed += ok ? 0 : 1;
}

int check() {
  const QLinearKernels* sets[4];
  const int count = kernel_sets(sets);
  KernelContext one = context_on(nullptr);
  // 1: the decode kernels; 4 and more: the prefill GEMMs (tiles of 8, 4 or 2 rows, then 1).
  const int64_t ms[] = {1, 2, 3, 4, 5, 9, 19};
  const int64_t ns[] = {1, 7, 8, 9, 24, 41};
  for (int s = 1; s < count; ++s) {
    const int before = g_checked;
    for (int scheme = 0; scheme < 3; ++scheme) {
      const bool int4 = scheme == static_cast<int>(Scheme::Dynamic4);
      // 1300: the int8 prefill GEMM's two spans of kQUnpackInputs (the last short).
      const int64_t ks_int8[] = {1, 3, 4, 5, 17, 64, 130, 1300};
      // 1056: 33 groups of 32 unpack in two parts (util/qlinear.h: kQUnpackInputs), one
      // group of 1056 takes the general path.
      const int64_t ks_int4[] = {32, 64, 96, 256, 1056};
      const int64_t* ks = int4 ? ks_int4 : ks_int8;
      const int count_k = int4 ? 5 : 8;
      for (int64_t m : ms) {
        for (int64_t n : ns) {
          for (int z = 0; z < count_k; ++z) {
            const int64_t k = ks[z];
            // int4: every grouping of 32-input multiples that divides k.
            for (int64_t groups = 1; groups <= (int4 ? k / 32 : 1); ++groups) {
              if (int4 && (k % groups != 0 || (k / groups) % kInt4Group != 0)) continue;
              Problem p(static_cast<Scheme>(scheme), m, n, k, groups);
              float* want = run(one, kQLinearGeneric, p);
              float* got = run(one, *sets[s], p);
              compare(sets[s]->name, p, got, want, scheme == static_cast<int>(Scheme::Dynamic8));
              free(want);
              free(got);
            }
          }
        }
      }
    }
    printf("%s: %d products checked against generic (prefill GEMM:%s%s%s)\n", sets[s]->name,
           g_checked - before, sets[s]->prefill_int4 != nullptr ? " int4" : "",
           sets[s]->prefill_int8 != nullptr ? " int8" : "",
           sets[s]->prefill_float_int8 != nullptr ? " int8-weight" : "");
  }
  // Threads: large enough to split, ragged in n; the same values as one thread.
  for (int threads = 2; threads <= 3; ++threads) {
    ThreadPool pool(threads);
    KernelContext ctx = context_on(pool.parallel());
    for (int s = 0; s < count; ++s) {
      for (int scheme = 0; scheme < 3; ++scheme) {
        Problem p(static_cast<Scheme>(scheme), 7, 300, 512, scheme == 2 ? 4 : 1);
        float* want = run(one, *sets[s], p);
        float* got = run(ctx, *sets[s], p);
        compare(sets[s]->name, p, got, want, true);
        free(want);
        free(got);
      }
    }
  }
  printf("%d products checked, %d failed\n", g_checked, g_failed);
  return g_failed == 0 ? 0 : 1;
}

const int64_t kTokens[] = {1, 64};  // input rows: one decode step, a full prefill

struct Shape {
  const char* name;
  int64_t n, k;
};

// Microseconds per call, best of `reps` timings.
double time_call(KernelContext& ctx, const QLinearKernels& kernels, Problem& p, int reps) {
  float* out = static_cast<float*>(malloc(sizeof(float) * p.a.m * p.a.n));
  p.a.out = out;
  const double work = static_cast<double>(p.a.m) * p.a.n * p.a.k;
  const int inner = static_cast<int>(fmax(1.0, 2e7 / work));
  double best = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    const double start = now();
    for (int i = 0; i < inner; ++i) (void)qlinear(ctx, kernels, p.a);
    best = fmin(best, (now() - start) / inner);
  }
  free(out);
  return best * 1e6;
}

int time_all(int reps) {
  const QLinearKernels* sets[4];
  const int count = kernel_sets(sets);
  const Shape shapes[] = {{"qkv 384x128", 384, 128}, {"fc 512x128", 512, 128},
                          {"proj 128x512", 128, 512}, {"head 512x128", 512, 128}};
  KernelContext one = context_on(nullptr);
  ThreadPool pool(2);
  KernelContext two = context_on(pool.parallel());
  printf("| scheme | T | shape (n x k) |");
  for (int s = 0; s < count; ++s) printf(" %s |", sets[s]->name);
  printf(" %s, 2 threads |\n|---|---:|---|", sets[count - 1]->name);
  for (int s = 0; s <= count; ++s) printf("---:|");
  printf("\n");
  for (int scheme = 0; scheme < 3; ++scheme) {
    for (const int64_t m : kTokens) {
      for (const Shape& shape : shapes) {
        Problem p(static_cast<Scheme>(scheme), m, shape.n, shape.k,
                  scheme == 2 ? shape.k / 32 : 1);
        printf("| %s | %lld | %s |", kSchemeNames[scheme], static_cast<long long>(m),
               shape.name);
        for (int s = 0; s < count; ++s) printf(" %.2f |", time_call(one, *sets[s], p, reps));
        // More runs: the second core is often busy with other work on a shared machine.
        printf(" %.2f |\n", time_call(two, *sets[count - 1], p, 5 * reps));
        fflush(stdout);
      }
    }
  }
  return 0;
}

// One m x n x k product with each kernel set, 8da8w (group 0) or 8da4w in groups of `group`
// inputs: microseconds and GMAC/s.
int time_shape(int64_t m, int64_t n, int64_t k, int reps, int64_t group) {
  const QLinearKernels* sets[4];
  const int count = kernel_sets(sets);
  KernelContext one = context_on(nullptr);
  const Scheme scheme = group > 0 ? Scheme::Dynamic4 : Scheme::Dynamic8;
  Problem p(scheme, m, n, k, group > 0 ? k / group : 1);
  for (int s = 0; s < count; ++s) {
    const double us = time_call(one, *sets[s], p, reps);
    printf("%s %s %lldx%lldx%lld: %.1f us, %.1f GMAC/s\n", sets[s]->name,
           kSchemeNames[static_cast<int>(scheme)],
           static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k), us,
           static_cast<double>(m * n * k) / us * 1e-3);
  }
  return 0;
}

// One pass of a plain sum over `words` 64-bit words.
__attribute__((noinline)) uint64_t plain_sum(const uint64_t* array, int64_t words) {
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int64_t i = 0; i + 4 <= words; i += 4) {
    s0 += array[i];
    s1 += array[i + 1];
    s2 += array[i + 2];
    s3 += array[i + 3];
  }
  return s0 + s1 + s2 + s3;
}

// One pass over the weights of a SmolLM-135M-shaped decoder: the layers' 8da4w linears
// (groups of 32) and the tied int8 output projection, each on `tokens` rows.
int stream(int reps, int threads, int64_t tokens) {
  struct Linear {
    int64_t n, k;
  };
  const Linear layer[] = {{576, 576}, {192, 576}, {192, 576}, {576, 576},
                          {1536, 576}, {1536, 576}, {576, 1536}};
  const int kLayers = 30;
  Problem* problems[kLayers * 7 + 1];
  int count = 0;
  double bytes = 0.0;
  for (int l = 0; l < kLayers; ++l) {
    for (const Linear& shape : layer) {
      problems[count++] = new Problem(Scheme::Dynamic4, tokens, shape.n, shape.k, shape.k / 32);
    }
  }
  problems[count++] = new Problem(Scheme::Dynamic8, 1, 49152, 576, 1);
  for (int i = 0; i < count; ++i) {
    bytes += problems[i]->w_bytes + problems[i]->s_bytes;
    const QLinearArgs& a = problems[i]->a;
    problems[i]->a.out = static_cast<float*>(malloc(sizeof(float) * a.m * a.n));
  }
  ThreadPool pool(threads);
  KernelContext ctx = context_on(threads > 1 ? pool.parallel() : nullptr);
  // The plain sum: an array of the weights' size, read once per pass like the weights.
  const int64_t words = static_cast<int64_t>(bytes) / 8;
  uint64_t* array = static_cast<uint64_t*>(malloc(words * 8));
  for (int64_t i = 0; i < words; ++i) array[i] = random_bits();
  double best_pass = 1e30, best_sum = 1e30, cpu_pass = 1e30, cpu_sum = 1e30;
  double ratios[256];  // per rep, on-CPU sum / pass: each pair sees the same contention
  reps = reps < 256 ? reps : 256;
  uint64_t checksum = 0;
  for (int rep = 0; rep < reps; ++rep) {
    double start = now();
    double cpu = bench::thread_seconds();
    for (int i = 0; i < count; ++i) (void)qlinear(ctx, problems[i]->a);
    best_pass = fmin(best_pass, now() - start);
    const double pass_seconds = bench::thread_seconds() - cpu;
    cpu_pass = fmin(cpu_pass, pass_seconds);
    start = now();
    cpu = bench::thread_seconds();
    checksum += plain_sum(array, words);
    best_sum = fmin(best_sum, now() - start);
    const double sum_seconds = bench::thread_seconds() - cpu;
    cpu_sum = fmin(cpu_sum, sum_seconds);
    ratios[rep] = sum_seconds / pass_seconds * tokens;
  }
  qsort(ratios, reps, sizeof(double), [](const void* l, const void* r) {
    const double a = *static_cast<const double*>(l), b = *static_cast<const double*>(r);
    return a < b ? -1 : a > b ? 1 : 0;
  });
  printf("%s, %d thread(s), %lld row(s): %.2f MB of weights in %.3f ms (%.1f GB/s); "
         "sum of as many bytes %.3f ms (%.1f GB/s): %.2f of the limit (checksum %llu)\n",
         qlinear_kernels().name, pool.threads(), static_cast<long long>(tokens), bytes / 1e6,
         best_pass * 1e3, bytes / best_pass / 1e9, best_sum * 1e3, bytes / best_sum / 1e9,
         best_sum / best_pass * tokens, static_cast<unsigned long long>(checksum % 1000));
  printf("  on-CPU time of this thread: pass %.3f ms, sum %.3f ms: %.2f; median of the "
         "runs' ratios %.2f\n", cpu_pass * 1e3, cpu_sum * 1e3, cpu_sum / cpu_pass * tokens,
         ratios[reps / 2]);
  for (int i = 0; i < count; ++i) {
    free(problems[i]->a.out);
    delete problems[i];
  }
  free(array);
  return 0;
}

// The plain sum's read rate in GB/s, best of `reps`: the rate the decode kernels aim at.
double sum_rate(const uint64_t* array, int64_t words, int reps, uint64_t* checksum) {
  double best = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    const double start = bench::thread_seconds();
    *checksum += plain_sum(array, words);
    best = fmin(best, bench::thread_seconds() - start);
  }
  return words * 8.0 / best / 1e9;
}

// A kernel set `decode` times: this tree's, or with --against another revision's.
struct Contender {
  char label[64];
  const QLinearKernels* set;  // nullptr: the other revision's set number `against`
  int against;
  bool scales_apart;          // its int4 layout (bench/qlinear_against.h)
};

void call(KernelContext& ctx, const Contender& c, const QLinearArgs& a) {
  if (c.set != nullptr) {
    (void)qlinear(ctx, *c.set, a);
    return;
  }
#if defined(TL_QLINEAR_AGAINST)
  bench::against_qlinear(ctx, c.against, {a.m, a.n, a.k, a.groups, a.weight_bits, a.dynamic_input,
                                   a.x, a.w, a.scales, a.bias, a.out});
#endif
}

// One linear's decode operands in copies of more than kColdBytes together, so a pass
// over the copies reads memory, not cache (the weights and scales as programs store them).
struct Copies {
  static constexpr int64_t kColdBytes = 256ll << 20;  // 8x the L3 of the machines this runs on
  int64_t bytes, count;
  uint8_t* memory;
  float* out;
  QLinearArgs* args;

  Copies(const Problem& p) {
    const int64_t w_bytes = p.w_bytes, s_bytes = p.s_bytes;
    bytes = w_bytes + s_bytes;
    count = kColdBytes / bytes + 1;
    memory = static_cast<uint8_t*>(aligned_alloc(4096, count * bytes));
    out = static_cast<float*>(malloc(sizeof(float) * p.a.n));
    args = new QLinearArgs[count];
    for (int64_t c = 0; c < count; ++c) {
      uint8_t* w = memory + c * bytes;
      memcpy(w, p.w, w_bytes);
      memcpy(w + w_bytes, p.scales, s_bytes);
      args[c] = p.a;
      args[c].w = w;
      args[c].scales = reinterpret_cast<const float*>(w + w_bytes);
      args[c].out = out;
    }
  }
  ~Copies() {
    delete[] args;
    free(out);
    free(memory);
  }

  // Seconds per call on the CPU, over every copy (cold) or the first again and again (hot;
  // on a shared machine the wall clock also counts other processes' turns).
  double seconds(KernelContext& ctx, const Contender& c, bool hot) const {
    if (hot) call(ctx, c, args[0]);  // into the caches
    const double start = bench::thread_seconds();
    for (int64_t i = 0; i < count; ++i) call(ctx, c, args[hot ? 0 : i]);
    return (bench::thread_seconds() - start) / count;
  }
};

// The 1B shape's decode calls, each contender in turn within every rep so that all see
// the machine in the same state; GB/s of weights and scales, best of `reps`.
int decode(int reps, const char* against_label) {
  const Shape shapes[] = {{"q/o 2048x2048", 2048, 2048}, {"k/v 512x2048", 512, 2048},
                          {"up/gate 8192x2048", 8192, 2048}, {"down 2048x8192", 2048, 8192}};
  const QLinearKernels* sets[4];
  const int all = kernel_sets(sets);
  Contender contenders[8];
  int count = 0;
#if defined(TL_QLINEAR_AGAINST)
  const char* names[4];
  const int against = bench::against_sets(names);
#endif
  for (int s = 0; s < all; ++s) {
    if (sets[s]->decode_int4 == nullptr || sets[s]->decode_int8 == nullptr) continue;
#if defined(TL_QLINEAR_AGAINST)
    for (int o = 0; o < against; ++o) {
      if (strcmp(names[o], sets[s]->name) != 0) continue;
      Contender& c = contenders[count++];
      snprintf(c.label, sizeof(c.label), "%s (%s)", names[o], against_label);
      c.set = nullptr;
      c.against = o;
      c.scales_apart = !bench::against_int4_scales_in_blocks();
    }
#endif
    Contender& c = contenders[count++];
    snprintf(c.label, sizeof(c.label), "%s", sets[s]->name);
    c.set = sets[s];
    c.scales_apart = false;
  }
  KernelContext one = context_on(nullptr);
  printf("| shape (n x k) | kernels | 8da4w GB/s | 8da8w GB/s | 4w / 8w | 8da4w in cache | "
         "8da8w in cache |\n|---|---|---:|---:|---:|---:|---:|\n");
  for (const Shape& shape : shapes) {
    // int4 in each layout a contender reads (the same bytes either way), and int8.
    const Problem p4(Scheme::Dynamic4, 1, shape.n, shape.k, shape.k / 32);
    const Problem p4_apart(Scheme::Dynamic4, 1, shape.n, shape.k, shape.k / 32, true);
    const Problem p8(Scheme::Dynamic8, 1, shape.n, shape.k, 1);
    bool apart = false;
    for (int c = 0; c < count; ++c) apart = apart || contenders[c].scales_apart;
    const Copies* int4[2] = {new Copies(p4), apart ? new Copies(p4_apart) : nullptr};
    const Copies* int8 = new Copies(p8);
    const auto copies = [&](int c, int z) {
      return z % 2 == 1 ? int8 : int4[contenders[c].scales_apart ? 1 : 0];
    };
    double best[8][4];  // per contender: int4, int8 from memory; int4, int8 in cache
    for (int c = 0; c < count; ++c) {
      for (double& b : best[c]) b = 1e30;
    }
    for (int rep = 0; rep < reps; ++rep) {
      for (int c = 0; c < count; ++c) {
        for (int z = 0; z < 4; ++z) {
          best[c][z] = fmin(best[c][z], copies(c, z)->seconds(one, contenders[c], z >= 2));
        }
      }
    }
    for (int c = 0; c < count; ++c) {
      double rate[4];
      for (int z = 0; z < 4; ++z) rate[z] = copies(c, z)->bytes / best[c][z] / 1e9;
      printf("| %s | %s | %.1f | %.1f | %.2f | %.1f | %.1f |\n", shape.name,
             contenders[c].label, rate[0], rate[1], rate[0] / rate[1], rate[2], rate[3]);
    }
    fflush(stdout);
    delete int4[0];
    delete int4[1];
    delete int8;
  }
  const int64_t words = Copies::kColdBytes / 8;
  uint64_t* array = static_cast<uint64_t*>(malloc(words * 8));
  for (int64_t i = 0; i < words; ++i) array[i] = random_bits();
  uint64_t checksum = 0;
  const double rate = sum_rate(array, words, reps, &checksum);
  printf("\nplain sum of %lld MB: %.1f GB/s (checksum %llu)\n",
         static_cast<long long>(Copies::kColdBytes >> 20), rate,
         static_cast<unsigned long long>(checksum % 1000));
  free(array);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "check") == 0) return check();
  if (argc >= 2 && strcmp(argv[1], "time") == 0) return time_all(argc >= 3 ? atoi(argv[2]) : 10);
  if (argc >= 5 && strcmp(argv[1], "shape") == 0) {
    return time_shape(atoll(argv[2]), atoll(argv[3]), atoll(argv[4]),
                      argc >= 6 ? atoi(argv[5]) : 10, argc >= 7 ? atoll(argv[6]) : 0);
  }
  if (argc >= 2 && strcmp(argv[1], "stream") == 0) {
    return stream(argc >= 3 ? atoi(argv[2]) : 10, argc >= 4 ? atoi(argv[3]) : 1,
                  argc >= 5 ? atoll(argv[4]) : 1);
  }
  if (argc >= 2 && strcmp(argv[1], "decode") == 0) {
    return decode(argc >= 3 ? atoi(argv[2]) : 10, argc >= 4 ? argv[3] : "before");
  }
  fprintf(stderr,
          "usage: qlinear check | time [REPS] | shape M N K [REPS] [GROUP] | "
          "stream [REPS] [THREADS] [TOKENS] | decode [REPS] [LABEL]\n");
  return 2;
}
