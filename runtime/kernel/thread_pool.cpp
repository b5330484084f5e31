#include "runtime/kernel/thread_pool.h"

namespace tailor {
namespace {

// About 50-100 microseconds of polling before a worker sleeps.
constexpr int kSpinRounds = 20000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  pthread_mutex_init(&mutex_, nullptr);
  pthread_cond_init(&wake_, nullptr);
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
  pthread_cond_destroy(&wake_);
  pthread_mutex_destroy(&mutex_);
}

void ThreadPool::work(ParallelTask task, void* context, int64_t count, int worker) {
  for (;;) {
    const int64_t i = __atomic_fetch_add(&next_, 1, __ATOMIC_RELAXED);
    if (i >= count) return;
    task(context, i, worker);
    __atomic_fetch_add(&done_, 1, __ATOMIC_RELEASE);
  }
}

void* ThreadPool::worker_main(void* arg) {
  const WorkerStart& start = *static_cast<const WorkerStart*>(arg);
  ThreadPool& pool = *start.pool;
  uint64_t seen = 0;
  for (;;) {
    for (int i = 0; i < kSpinRounds; ++i) {
      if (__atomic_load_n(&pool.generation_, __ATOMIC_ACQUIRE) != seen ||
          __atomic_load_n(&pool.stop_, __ATOMIC_ACQUIRE)) {
        break;
      }
      cpu_relax();
    }
    // The job is read under the lock, and run() changes it only under the lock and
    // once no worker is active: a worker never mixes two jobs' fields and counters.
    pthread_mutex_lock(&pool.mutex_);
    while (pool.generation_ == seen && !pool.stop_) pthread_cond_wait(&pool.wake_, &pool.mutex_);
    if (pool.stop_) {
      pthread_mutex_unlock(&pool.mutex_);
      return nullptr;
    }
    seen = pool.generation_;
    const ParallelTask task = pool.task_;
    void* const context = pool.context_;
    const int64_t count = pool.count_;
    __atomic_fetch_add(&pool.active_, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&pool.mutex_);
    pool.work(task, context, count, start.worker);
    __atomic_fetch_sub(&pool.active_, 1, __ATOMIC_ACQ_REL);
  }
}

void ThreadPool::run(void* self, int64_t count, ParallelTask task, void* context) {
  ThreadPool& pool = *static_cast<ThreadPool*>(self);
  if (pool.num_workers_ == 0 || count <= 1) {
    for (int64_t i = 0; i < count; ++i) task(context, i, 0);
    return;
  }
  pthread_mutex_lock(&pool.mutex_);
  // A worker that joined the previous job late may still be leaving it.
  while (__atomic_load_n(&pool.active_, __ATOMIC_ACQUIRE) != 0) cpu_relax();
  pool.task_ = task;
  pool.context_ = context;
  pool.count_ = count;
  __atomic_store_n(&pool.next_, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&pool.done_, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&pool.generation_, pool.generation_ + 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool.wake_);
  pthread_mutex_unlock(&pool.mutex_);
  pool.work(task, context, count, 0);
  while (__atomic_load_n(&pool.done_, __ATOMIC_ACQUIRE) < count) cpu_relax();
}

}  // namespace tailor
