// ThreadPool: a Parallel (runtime/kernel/parallel.h) on POSIX threads, for applications
// that give kernels more than one thread (the runner's --threads N).
#pragma once

#include <pthread.h>
#include <stdint.h>

#include "runtime/kernel/parallel.h"
#include "runtime/kernel/thread_backoff.h"

namespace tailor {

/// `threads` - 1 worker threads started by the constructor (none for 1) and joined by the
/// destructor; the thread calling run() is the last one. Every thread, the caller's
/// included, claims tasks from one shared counter, so a thread the system preempts holds
/// at most the task it is running and the others take the rest. A worker waits for the
/// next job spinning for 200 us (a forward pass calls many small kernels back to back, and
/// waking a sleeping thread costs more than most of them) unless it finds itself on the
/// caller's core; the caller waits for a job's end spinning for 20 us. Then they sleep on
/// a condition variable: a waiting thread never burns a core long that a preempted
/// thread could use. Where the second core is taken (a busy process beside it), jobs run
/// on the caller alone for a while (ThreadBackoff, runtime/kernel/thread_backoff.h). One
/// job at a time: run() from several threads at once is not supported.
class ThreadPool final {
 public:
  static constexpr int kMaxThreads = 64;

  /// `threads` as a command line gives it: 0 means every online core; at most
  /// kMaxThreads, at least 1.
  static int resolve_threads(int threads);

  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Threads that run jobs, the caller's included (fewer than asked if the system
  /// refused to create some).
  int threads() const { return parallel_.threads; }
  /// For Method::set_parallel(); valid while the pool lives.
  const Parallel* parallel() const { return &parallel_; }
  /// The last back-off period (0 before the first), for tests and statistics: read it on
  /// the thread that calls run().
  int64_t backoff_nanos() const { return backoff_.period(); }
  /// How many times a worker went to sleep waiting for a job, for tests and statistics.
  int64_t worker_sleeps() const { return __atomic_load_n(&sleeps_, __ATOMIC_RELAXED); }

 private:
  static void* worker_main(void* self);
  static void run(void* self, int64_t count, ParallelTask task, void* context);
  // Whether the job's end waited on a late worker (ThreadBackoff::kLateNanos) or a worker
  // ran a task on the caller's core.
  bool run_job(int64_t base, int64_t count, ParallelTask task, void* context);
  // Runs tasks of job `generation`; how many.
  int64_t work(uint32_t generation, int worker);

  struct WorkerStart {
    ThreadPool* pool;
    int worker;  // the ParallelTask's `worker`: 1 .. threads - 1
  };

  Parallel parallel_;
  pthread_t workers_[kMaxThreads];
  WorkerStart starts_[kMaxThreads];
  int num_workers_ = 0;
  pthread_mutex_t mutex_;
  pthread_cond_t wake_;  // workers sleep here between jobs
  pthread_cond_t done_;  // the caller sleeps here until the job's last task ends
  // The current job, written under mutex_ (read under it by workers joining the job).
  ParallelTask task_ = nullptr;
  void* context_ = nullptr;
  int64_t base_ = 0;   // task index of claim 0 (jobs of over 2^31 tasks run in parts)
  int64_t count_ = 0;  // tasks in this part
  uint32_t generation_ = 0;  // counts jobs; read outside the lock while spinning
  bool stop_ = false;
  // The claim word (atomic builtins): the job's generation in the high 32 bits, the next
  // task to take in the low 32. A worker that joins a job late claims with the generation
  // it read, so it can never take a task of the job after it: no one waits for it.
  uint64_t claim_ = 0;
  int64_t finished_ = 0;  // tasks of the current job that ended
  // The core the caller ran on when it started the current job, and whether a worker ran
  // a task of it on that core (atomic builtins): then the two threads took turns there.
  int caller_core_ = -1;
  bool shared_core_ = false;
  ThreadBackoff backoff_;  // touched only by the thread calling run()
  int64_t sleeps_ = 0;     // atomic builtins
};

}  // namespace tailor
