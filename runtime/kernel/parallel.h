// Parallel: how kernels split one call over threads the application provides.
//
// The core creates no thread: an application that wants several (the runner's
// --threads N) makes a ThreadPool (runtime/kernel/thread_pool.h, POSIX threads) and hands
// its Parallel to Method::set_parallel(); kernels reach it through
// KernelContext::parallel_for(). Without one, parallel_for() runs every task on the
// calling thread, in order.
#pragma once

#include <stdint.h>

namespace tailor {

/// One task of a parallel_for(): `i` is its index, `context` the caller's data, `worker`
/// the thread running it, from 0 (the caller) to threads - 1: no two tasks run at once
/// with the same `worker`, so it indexes per-thread memory (the kernels' scratch slices).
using ParallelTask = void (*)(void* context, int64_t i, int worker);

/// A way to run tasks on several threads. `run` calls task(context, i, worker) once for
/// every i < count, on any of `threads` threads (the caller's included), and returns when
/// all have finished. Tasks must not depend on each other's order.
struct Parallel {
  void* impl = nullptr;
  int threads = 1;
  void (*run)(void* impl, int64_t count, ParallelTask task, void* context) = nullptr;
};

/// The cost rule. A call's work is its elements times their cost, in units of about one
/// multiply-add (an add or a copy: 1; a GEMM output: k; an exp: about 10). Below
/// kParallelMinWork a call runs on the calling thread and wakes no one: waking a worker
/// costs about what 100k multiply-adds do (5-50 us).
constexpr int64_t kParallelMinWork = int64_t{1} << 17;
/// Chunks per thread a split aims at: a thread preempted on a busy core then holds at
/// most a quarter of its share, and the threads that run take over the rest.
constexpr int64_t kChunksPerThread = 4;
/// No chunk smaller than this much work: claiming one is a shared atomic operation.
constexpr int64_t kParallelMinChunkWork = int64_t{1} << 14;

/// Elements per chunk when `n` elements of `cost` each split over `threads`: about
/// kChunksPerThread chunks a thread, none under kParallelMinChunkWork, a multiple of
/// `grain` (elements of a cache line or two, so no two threads write one line); n (one
/// chunk, run by the caller) when the whole is under kParallelMinWork or there is one
/// thread.
inline int64_t parallel_chunk(int64_t n, int64_t cost, int threads, int64_t grain = 1) {
  if (cost < 1) cost = 1;
  if (grain < 1) grain = 1;
  if (threads <= 1 || n <= 1 || n * cost < kParallelMinWork) return n < 1 ? 1 : n;
  const int64_t chunks = kChunksPerThread * threads;
  const int64_t even = (n + chunks - 1) / chunks;
  const int64_t least = (kParallelMinChunkWork + cost - 1) / cost;
  const int64_t chunk = (even > least ? even : least) + grain - 1;
  return chunk / grain * grain;
}

}  // namespace tailor
