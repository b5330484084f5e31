// ThreadBackoff: when a thread pool (thread_pool.cpp) runs its jobs on the calling thread
// alone. Only the rule: the pool gives it the time, so a test can drive it with made-up
// times.
#pragma once

#include <stdint.h>

namespace tailor {

/// On a core shared with a busy process, a second thread costs more than it gives, two
/// ways: a worker the system preempts inside a task holds the caller for a time slice
/// (milliseconds) at the end of a job, and a worker woken for a job lands on the caller's
/// core (the other one is taken) and the two take turns there. A forward pass runs
/// hundreds of jobs, so either adds up to more than the second core saves. The pool calls
/// back_off() on a job that met either; jobs then run on the caller alone, the workers
/// asleep, for a period, and after it on all threads again (the probe). The next period
/// is twice as long (up to kMaxNanos) when the contention comes back less than a period
/// after the probe began, and kMinNanos otherwise. Used by the one thread that calls the
/// pool's run().
class ThreadBackoff final {
 public:
  /// A job is late when the caller, out of tasks, waited on the other threads' last ones
  /// longer than this plus twice its own mean task time (what an on-time worker's last
  /// task may still need). On an idle machine the wait, the caller's own wake-up from its
  /// sleep included, stays under 0.3 ms; a preempted worker holds it a time slice (about
  /// 1 ms or more), and a shorter hold costs less than a back-off period does.
  static constexpr int64_t kLateNanos = 500000;
  static constexpr int64_t kMinNanos = 2000000;
  static constexpr int64_t kMaxNanos = 256000000;

  /// Whether a job starting at `now` runs on the caller alone (the first one after a
  /// period, which does not, begins the probe).
  bool solo(int64_t now) {
    if (now < solo_until_) return true;
    if (!probing_) {
      probing_ = true;
      probe_start_ = now;
    }
    return false;
  }

  /// Starts a back-off period at `now`: a job that started after the last solo() answer
  /// met a late worker or shared the caller's core.
  void back_off(int64_t now) {
    if (period_ > 0 && now - probe_start_ < period_) {
      period_ = period_ > kMaxNanos / 2 ? kMaxNanos : period_ * 2;
    } else {
      period_ = kMinNanos;
    }
    solo_until_ = now + period_;
    probing_ = false;
  }

  /// The last back-off period's length (0 before the first).
  int64_t period() const { return period_; }

 private:
  int64_t solo_until_ = 0;
  int64_t period_ = 0;
  bool probing_ = false;     // jobs run on all threads since probe_start_
  int64_t probe_start_ = 0;
};

}  // namespace tailor
