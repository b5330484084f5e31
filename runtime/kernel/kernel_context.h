// KernelContext: what a kernel gets besides its arguments; how it reports failure.
#pragma once

#include "runtime/core/error.h"
#include "runtime/kernel/kernel_scratch.h"
#include "runtime/kernel/parallel.h"
#include "runtime/kernel/random.h"

namespace tailor {

struct DelegateHandle;  // runtime/backend/backend.h

/// A delegate whose backend's threads are to rest (Backend::rest) before the next split.
struct DelegateRest {
  void (*rest)(DelegateHandle*) = nullptr;  // nullptr: none pending
  DelegateHandle* handle = nullptr;
};

/// One task of KernelContext::parallel_for(): `i` is its index, `context` the caller's
/// data, `scratch` the slice of the thread running it (empty but for what the calling
/// kernel holds, when the task runs on the calling thread).
using ScratchTask = void (*)(void* context, int64_t i, KernelScratch& scratch);

/// Passed to every kernel call. A kernel that cannot run logs why, calls fail() and
/// returns; execute() then stops and returns that Error.
class KernelContext final {
 public:
  /// Marks the current kernel call as failed with `error` (not Ok).
  void fail(Error error) { failure_ = error; }
  /// Ok unless a kernel called fail() since the last reset().
  Error failure_state() const { return failure_; }
  void reset() { failure_ = Error::Ok; }

  /// The threads parallel_for() may use: 1 unless the application set a Parallel.
  int threads() const { return parallel_ != nullptr ? parallel_->threads : 1; }
  /// Calls task(context, i, scratch) for every i < count, on threads() threads, each
  /// with its own thread's scratch slice; returns when all are done. With one thread (or
  /// count 1) they run here, in order.
  void parallel_for(int64_t count, ScratchTask task, void* context) {
    if (parallel_ == nullptr || parallel_->threads <= 1 || count <= 1) {
      for (int64_t i = 0; i < count; ++i) {
        ScratchScope scope(scratch());
        task(context, i, scratch());
      }
      return;
    }
    if (rest_.rest != nullptr) {  // once, before the first split after a delegate
      rest_.rest(rest_.handle);
      rest_ = DelegateRest{};
    }
    Job job{task, context, scratch_};
    parallel_->run(parallel_->impl, count, &run_task, &job);
  }

  /// Calls fn(begin, end, scratch) over chunks of [0, n) that cover it once, split by
  /// parallel_chunk() (the cost rule: `cost` per element, see parallel.h): on the calling
  /// thread alone for little work, else in several chunks a thread, claimed by whichever
  /// thread is free; chunks are multiples of `grain` elements. A chunk must compute each
  /// output element the way one thread would (results then do not depend on the threads).
  template <typename F>
  void parallel_range(int64_t n, int64_t cost, const F& fn, int64_t grain = 1) {
    if (n <= 0) return;
    const int64_t chunk = parallel_chunk(n, cost, threads(), grain);
    if (chunk >= n) {
      ScratchScope scope(scratch());
      fn(int64_t{0}, n, scratch());
      return;
    }
    Range<F> range{&fn, n, chunk};
    parallel_for((n + chunk - 1) / chunk, &Range<F>::run, &range);
  }

  /// The packed copy Method load made of the current call's constant weight (runtime/
  /// kernel/prepack.h), or nullptr: the kernel checks it fits the call before reading it.
  const void* packed() const { return packed_; }
  void set_packed(const void* packed) { packed_ = packed; }

  /// The calling thread's scratch slice (an empty one when the method reserved none).
  KernelScratch& scratch() { return scratch_ != nullptr ? scratch_[0] : empty_; }

  /// The random stream of the current call (runtime/kernel/random.h): a kernel draws
  /// element n's bits as random::bits(random_key(), n).
  uint64_t random_key() const { return random::stream_key(seed_, run_, instruction_); }
  /// Set by Method::execute(): the method's seed and run count, then each instruction.
  void set_random_run(uint64_t seed, uint64_t run) {
    seed_ = seed;
    run_ = run;
  }
  void set_instruction(uint64_t pc) { instruction_ = pc; }

  /// Set by Method::execute() from Method::set_parallel(); nullptr: one thread.
  void set_parallel(const Parallel* parallel) { parallel_ = parallel; }
  /// Set by Method::execute(): one slice per thread of the Parallel (at least one).
  void set_scratch(KernelScratch* slices) { scratch_ = slices; }
  /// Set by Method::execute() after a delegate call (Backend::rest): called before the
  /// next parallel_for() that splits, so the delegate's threads leave the cores to it.
  void set_rest(DelegateRest rest) { rest_ = rest; }
  /// The rest no split has made yet, which Method keeps for its next run.
  DelegateRest pending_rest() const { return rest_; }

 private:
  struct Job {
    ScratchTask task;
    void* context;
    KernelScratch* slices;
  };
  template <typename F>
  struct Range {
    const F* fn;
    int64_t n;
    int64_t chunk;
    static void run(void* self, int64_t i, KernelScratch& scratch) {
      const Range& r = *static_cast<const Range*>(self);
      const int64_t begin = i * r.chunk;
      (*r.fn)(begin, r.n - begin < r.chunk ? r.n : begin + r.chunk, scratch);
    }
  };
  static void run_task(void* job_ptr, int64_t i, int worker) {
    const Job& job = *static_cast<const Job*>(job_ptr);
    KernelScratch none;
    KernelScratch& slice = job.slices != nullptr ? job.slices[worker] : none;
    ScratchScope scope(slice);
    job.task(job.context, i, slice);
  }

  Error failure_ = Error::Ok;
  uint64_t seed_ = 0;
  uint64_t run_ = 0;
  uint64_t instruction_ = 0;
  const Parallel* parallel_ = nullptr;
  KernelScratch* scratch_ = nullptr;
  const void* packed_ = nullptr;
  DelegateRest rest_;
  KernelScratch empty_;
};

}  // namespace tailor
