// How fast one core (or N threads) reads memory: the ceiling of a decode step that reads
// every weight once. Sums a buffer larger than the caches, best of several passes.
//
//   read_bandwidth [MB] [threads] [passes]     prints "<GB/s>" on stdout
//
// The sum is of 64-bit integers (associative, so the compiler keeps four independent
// vector accumulators in flight) and is printed to stderr, so no pass is optimised away.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <thread>
#include <vector>

namespace {

typedef uint64_t Vec __attribute__((vector_size(16)));

uint64_t sum_slice(const Vec* v, size_t count) {
  Vec a = {0, 0}, b = a, c = a, d = a;
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    a += v[i];
    b += v[i + 1];
    c += v[i + 2];
    d += v[i + 3];
  }
  for (; i < count; ++i) a += v[i];
  const Vec s = a + b + c + d;
  return s[0] + s[1];
}

}  // namespace

int main(int argc, char** argv) {
  const size_t mb = argc > 1 ? strtoull(argv[1], nullptr, 10) : 512;
  const size_t threads = argc > 2 ? strtoull(argv[2], nullptr, 10) : 1;
  const int passes = argc > 3 ? atoi(argv[3]) : 5;
  if (mb == 0 || threads == 0 || passes <= 0) {
    fprintf(stderr, "usage: read_bandwidth [MB] [threads] [passes] (all >= 1)\n");
    return 2;
  }
  const size_t count = mb * (1u << 20) / sizeof(Vec);
  Vec* data = static_cast<Vec*>(aligned_alloc(64, count * sizeof(Vec)));
  if (data == nullptr) {
    fprintf(stderr, "read_bandwidth: cannot allocate %zu MB\n", mb);
    return 1;
  }
  memset(data, 1, count * sizeof(Vec));  // fault every page in before timing
  double best = 1e30;
  uint64_t total = 0;
  std::vector<uint64_t> sums(threads);
  for (int p = 0; p < passes; ++p) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    const size_t slice = count / threads;
    for (size_t t = 1; t < threads; ++t) {
      const size_t end = t + 1 == threads ? count : (t + 1) * slice;
      pool.emplace_back([&, t, end] { sums[t] = sum_slice(data + t * slice, end - t * slice); });
    }
    sums[0] = sum_slice(data, threads == 1 ? count : slice);
    for (std::thread& worker : pool) worker.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds < best) best = seconds;
    for (uint64_t s : sums) total += s;
  }
  fprintf(stderr, "checksum %llu\n", static_cast<unsigned long long>(total));
  printf("%.2f\n", count * sizeof(Vec) / best / 1e9);
  free(data);
  return 0;
}
