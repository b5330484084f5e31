// ThreadPool: a Parallel (runtime/kernel/parallel.h) on POSIX threads, for applications
// that give kernels more than one thread (the runner's --threads N).
#pragma once

#include <pthread.h>
#include <stdint.h>

#include "runtime/kernel/parallel.h"

namespace tailor {

/// `threads` - 1 worker threads started by the constructor (none for 1) and joined by the
/// destructor; the thread calling run() is the last one. Workers spin briefly after each
/// job (a forward pass calls many small kernels back to back, and waking a sleeping
/// thread costs more than most of them), then sleep until the next. One job at a time:
/// run() from several threads at once is not supported.
class ThreadPool final {
 public:
  static constexpr int kMaxThreads = 64;

  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Threads that run jobs, the caller's included (fewer than asked if the system
  /// refused to create some).
  int threads() const { return parallel_.threads; }
  /// For Method::set_parallel(); valid while the pool lives.
  const Parallel* parallel() const { return &parallel_; }

 private:
  static void* worker_main(void* self);
  static void run(void* self, int64_t count, ParallelTask task, void* context);
  void work(ParallelTask task, void* context, int64_t count, int worker);

  struct WorkerStart {
    ThreadPool* pool;
    int worker;  // the ParallelTask's `worker`: 1 .. threads - 1
  };

  Parallel parallel_;
  pthread_t workers_[kMaxThreads];
  WorkerStart starts_[kMaxThreads];
  int num_workers_ = 0;
  pthread_mutex_t mutex_;
  pthread_cond_t wake_;
  // The current job, written under mutex_ while no worker is inside one.
  ParallelTask task_ = nullptr;
  void* context_ = nullptr;
  int64_t count_ = 0;
  uint64_t generation_ = 0;  // counts jobs; read outside the lock while spinning
  bool stop_ = false;
  // Shared counters of the current job (atomic builtins).
  int64_t next_ = 0;    // the next task index to take
  int64_t done_ = 0;    // tasks finished
  int active_ = 0;      // workers inside a job
};

}  // namespace tailor
