#include "runtime/kernel/thread_pool.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

namespace tailor {
namespace {

// Polling before a thread sleeps, measured by the clock (what a pause instruction costs
// varies tenfold between CPUs). The caller, out of tasks, polls for the job's end briefly:
// a worker preempted on its core must get it back soon.
constexpr int64_t kSpinNanos = 20000;
// A worker polls for the next job longer: waking it from its sleep costs 10-40 us (a
// virtual machine's interrupt), more than most kernels of a forward pass take, and the
// serial stretches between two parallel calls (a softmax, a GELU, the copies of
// attention) run 20-50 us. It stops as soon as it finds itself on the caller's core,
// where its polling would take the caller's time.
constexpr int64_t kWorkerSpinNanos = 200000;
// Parts of at most this many tasks, so a part's claim index fits the claim word.
constexpr int64_t kMaxPart = int64_t{1} << 30;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

int64_t now_nanos() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// Polls `done` for up to `nanos`, or until `give_up()` (checked with the clock); whether
// `done` came true.
template <typename Done, typename GiveUp>
bool spin_until(const Done& done, int64_t nanos, const GiveUp& give_up) {
  const int64_t start = now_nanos();
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    if (now_nanos() - start > nanos || give_up()) return done();
  }
}

template <typename Done>
bool spin_until(const Done& done) {
  return spin_until(done, kSpinNanos, [] { return false; });
}

// The core the calling thread runs on, or -1 where the system does not say.
int current_core() {
#ifdef __linux__
  return sched_getcpu();
#else
  return -1;
#endif
}

}  // namespace

int ThreadPool::resolve_threads(int threads) {
  if (threads == 0) {
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cores < 1 ? 1 : cores > kMaxThreads ? kMaxThreads : static_cast<int>(cores);
  }
  return threads < 1 ? 1 : threads > kMaxThreads ? kMaxThreads : threads;
}

ThreadPool::ThreadPool(int threads) {
  pthread_mutex_init(&mutex_, nullptr);
  pthread_cond_init(&wake_, nullptr);
  pthread_cond_init(&done_, nullptr);
  parallel_.impl = this;
  parallel_.run = &ThreadPool::run;
  const int wanted = (threads < 1 ? 1 : threads > kMaxThreads ? kMaxThreads : threads) - 1;
  for (int i = 0; i < wanted; ++i) {
    starts_[num_workers_] = WorkerStart{this, num_workers_ + 1};  // the caller is worker 0
    if (pthread_create(&workers_[num_workers_], nullptr, &ThreadPool::worker_main,
                       &starts_[num_workers_]) != 0) {
      break;  // run with the threads there are
    }
    ++num_workers_;
  }
  parallel_.threads = num_workers_ + 1;
}

ThreadPool::~ThreadPool() {
  pthread_mutex_lock(&mutex_);
  __atomic_store_n(&stop_, true, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&wake_);
  pthread_mutex_unlock(&mutex_);
  for (int i = 0; i < num_workers_; ++i) pthread_join(workers_[i], nullptr);
  pthread_cond_destroy(&done_);
  pthread_cond_destroy(&wake_);
  pthread_mutex_destroy(&mutex_);
}

// Claims and runs tasks of job `generation` until none is left (or the job is over).
// The job's fields are read under the lock: run_job() changes them only once every task
// of the previous job has ended, and a late worker's claim then fails on the generation.
int64_t ThreadPool::work(uint32_t generation, int worker) {
  pthread_mutex_lock(&mutex_);
  const bool current = generation_ == generation;
  const ParallelTask task = task_;
  void* const context = context_;
  const int64_t base = base_;
  const int64_t count = count_;
  pthread_mutex_unlock(&mutex_);
  if (!current) return 0;
  int64_t ran = 0;
  const uint64_t tag = uint64_t{generation} << 32;
  uint64_t claim = __atomic_load_n(&claim_, __ATOMIC_RELAXED);
  for (;;) {
    if ((claim & ~uint64_t{0xFFFFFFFF}) != tag ||
        static_cast<int64_t>(claim & 0xFFFFFFFF) >= count) {
      return ran;
    }
    if (!__atomic_compare_exchange_n(&claim_, &claim, claim + 1, true, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED)) {
      continue;  // `claim` now holds the current word
    }
    task(context, base + static_cast<int64_t>(claim & 0xFFFFFFFF), worker);
    ++ran;
    if (worker != 0 && ran == 1) {
      const int core = current_core();
      if (core >= 0 && core == __atomic_load_n(&caller_core_, __ATOMIC_RELAXED)) {
        __atomic_store_n(&shared_core_, true, __ATOMIC_RELAXED);  // published by finished_
      }
    }
    if (__atomic_add_fetch(&finished_, 1, __ATOMIC_ACQ_REL) == count && worker != 0) {
      // The caller may be asleep on the job's end (the lock orders this after its check).
      pthread_mutex_lock(&mutex_);
      pthread_cond_signal(&done_);
      pthread_mutex_unlock(&mutex_);
    }
    claim = __atomic_load_n(&claim_, __ATOMIC_RELAXED);
  }
}

void* ThreadPool::worker_main(void* arg) {
  const WorkerStart& start = *static_cast<const WorkerStart*>(arg);
  ThreadPool& pool = *start.pool;
  uint32_t seen = 0;
  for (;;) {
    spin_until(
        [&pool, seen] {
          return __atomic_load_n(&pool.generation_, __ATOMIC_ACQUIRE) != seen ||
                 __atomic_load_n(&pool.stop_, __ATOMIC_ACQUIRE);
        },
        kWorkerSpinNanos,
        [&pool] {
          const int core = current_core();
          return core >= 0 && core == __atomic_load_n(&pool.caller_core_, __ATOMIC_RELAXED);
        });
    pthread_mutex_lock(&pool.mutex_);
    while (pool.generation_ == seen && !pool.stop_) {
      __atomic_add_fetch(&pool.sleeps_, 1, __ATOMIC_RELAXED);
      pthread_cond_wait(&pool.wake_, &pool.mutex_);
    }
    const bool stop = pool.stop_;
    seen = pool.generation_;
    pthread_mutex_unlock(&pool.mutex_);
    if (stop) return nullptr;
    pool.work(seen, start.worker);
  }
}

bool ThreadPool::run_job(int64_t base, int64_t count, ParallelTask task, void* context) {
  pthread_mutex_lock(&mutex_);
  task_ = task;
  context_ = context;
  base_ = base;
  count_ = count;
  const uint32_t generation = generation_ + 1;
  __atomic_store_n(&finished_, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&caller_core_, current_core(), __ATOMIC_RELAXED);
  __atomic_store_n(&shared_core_, false, __ATOMIC_RELAXED);
  __atomic_store_n(&claim_, uint64_t{generation} << 32, __ATOMIC_RELEASE);
  __atomic_store_n(&generation_, generation, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&wake_);
  pthread_mutex_unlock(&mutex_);
  const int64_t start = now_nanos();
  const int64_t ran = work(generation, 0);
  // Every task is claimed; wait for the ones other threads still run: briefly polling,
  // then asleep, so a preempted worker can have this core.
  const auto all_done = [this, count] {
    return __atomic_load_n(&finished_, __ATOMIC_ACQUIRE) == count;
  };
  if (all_done()) return __atomic_load_n(&shared_core_, __ATOMIC_RELAXED);
  const int64_t out_of_tasks = now_nanos();
  if (!spin_until(all_done)) {
    pthread_mutex_lock(&mutex_);
    while (!all_done()) pthread_cond_wait(&done_, &mutex_);
    pthread_mutex_unlock(&mutex_);
  }
  if (__atomic_load_n(&shared_core_, __ATOMIC_RELAXED)) return true;
  // A caller that ran no task was held up itself, and has no measure of a task's time.
  if (ran == 0) return false;
  const int64_t task_nanos = (out_of_tasks - start) / ran;
  return now_nanos() - out_of_tasks > ThreadBackoff::kLateNanos + 2 * task_nanos;
}

void ThreadPool::run(void* self, int64_t count, ParallelTask task, void* context) {
  ThreadPool& pool = *static_cast<ThreadPool*>(self);
  if (pool.num_workers_ == 0 || count <= 1 || pool.backoff_.solo(now_nanos())) {
    for (int64_t i = 0; i < count; ++i) task(context, i, 0);
    return;
  }
  for (int64_t base = 0; base < count; base += kMaxPart) {
    if (pool.run_job(base, count - base < kMaxPart ? count - base : kMaxPart, task, context)) {
      pool.backoff_.back_off(now_nanos());
    }
  }
}

}  // namespace tailor
