// The read bandwidth of one core: how fast this thread sums an array of a given size, the
// limit of a decode step that reads every weight once (bench/llm_decode.py builds and runs
// it next to the llm app, so the limit and the rate come from the same minutes).
//
//   bandwidth BYTES [REPS]   prints "GB/s" of the fastest of REPS sums (default 10)
//
// The array is written once (so its pages exist) and then only read; the sum goes into
// four independent 64-bit accumulators per lane so the loop waits on memory, not on adds.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_util.h"

namespace {

// Sum of the array as 64-bit words: what the compiler vectorizes at the target's baseline
// (x86-64: SSE2, two loads a cycle already exceed one core's share of DRAM bandwidth).
uint64_t sum_words(const uint64_t* words, int64_t count) {
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = 0;
  for (; i + 4 <= count; i += 4) {
    s0 += words[i];
    s1 += words[i + 1];
    s2 += words[i + 2];
    s3 += words[i + 3];
  }
  for (; i < count; ++i) s0 += words[i];
  return s0 + s1 + s2 + s3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || atoll(argv[1]) <= 0) {
    fprintf(stderr, "usage: bandwidth BYTES [REPS]\n");
    return 2;
  }
  const int64_t count = atoll(argv[1]) / 8;
  const int reps = argc >= 3 ? atoi(argv[2]) : 10;
  uint64_t* words = static_cast<uint64_t*>(aligned_alloc(4096, (count * 8 + 4095) / 4096 * 4096));
  if (words == nullptr) {
    fprintf(stderr, "bandwidth: cannot allocate %lld bytes\n", static_cast<long long>(count * 8));
    return 1;
  }
  for (int64_t i = 0; i < count; ++i) words[i] = bench::random_bits();
  double best = 1e30;
  uint64_t total = 0;  // printed, so the sums are not optimized away
  for (int rep = 0; rep < reps; ++rep) {
    const double start = bench::now();
    total += sum_words(words, count);
    const double seconds = bench::now() - start;
    best = seconds < best ? seconds : best;
  }
  printf("%.3f GB/s (%lld bytes, best of %d; checksum %llu)\n", count * 8 / best / 1e9,
         static_cast<long long>(count * 8), reps, static_cast<unsigned long long>(total % 1000));
  free(words);
  return 0;
}
