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

}  // namespace tailor
