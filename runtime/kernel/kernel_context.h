// KernelContext: what a kernel gets besides its arguments; how it reports failure.
#pragma once

#include "runtime/core/error.h"
#include "runtime/kernel/parallel.h"

namespace tailor {

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
  /// Calls task(context, i) for every i < count, on threads() threads; returns when all
  /// are done. With one thread (or count 1) they run here, in order.
  void parallel_for(int64_t count, ParallelTask task, void* context) {
    if (parallel_ == nullptr || parallel_->threads <= 1 || count <= 1) {
      for (int64_t i = 0; i < count; ++i) task(context, i);
      return;
    }
    parallel_->run(parallel_->impl, count, task, context);
  }
  /// Set by Method::execute() from Method::set_parallel(); nullptr: one thread.
  void set_parallel(const Parallel* parallel) { parallel_ = parallel; }

 private:
  Error failure_ = Error::Ok;
  const Parallel* parallel_ = nullptr;
};

}  // namespace tailor
