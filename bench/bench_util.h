// What the stand-alone kernel benches (bench/gemm.cpp, bench/qlinear.cpp) share: a
// seeded generator, so every run checks the same numbers, a monotonic clock, and the
// kernels' scratch slices.
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/kernel/kernel_scratch.h"
#include "runtime/kernel/thread_pool.h"

namespace bench {

inline uint64_t g_seed = 88172645463325252ull;

// xorshift64: the next 64 random bits.
inline uint64_t random_bits() {
  g_seed ^= g_seed << 13;
  g_seed ^= g_seed >> 7;
  g_seed ^= g_seed << 17;
  return g_seed;
}

// One of 2001 values in [-1.003, 1.003].
inline float random_float() {
  return static_cast<float>(static_cast<int64_t>(random_bits() % 2001) - 1000) / 997.0f;
}

// Seconds since some fixed point.
inline double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Seconds this thread has run (time on the CPU: what a busy machine's other processes
// take away from the wall clock is not counted).
inline double thread_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// The kernels' scratch as a Method reserves it: one slice of kBytes per thread
// (ThreadPool::kMaxThreads of them, slice 0 the calling thread's).
template <size_t kBytes>
tailor::KernelScratch* scratch_slices() {
  using tailor::KernelScratch;
  using tailor::ThreadPool;
  static uint8_t* memory = static_cast<uint8_t*>(
      aligned_alloc(KernelScratch::kAlignment, ThreadPool::kMaxThreads * kBytes));
  static KernelScratch slices[ThreadPool::kMaxThreads];
  for (int i = 0; i < ThreadPool::kMaxThreads; ++i) {
    slices[i] = KernelScratch(memory + i * kBytes, kBytes);
  }
  return slices;
}

}  // namespace bench
