// ThreadBackoff: when a thread pool (thread_pool.cpp) runs its jobs on the calling thread
// alone. Only the rule: the pool gives it the time and the caller's preemption count and
// CPU time, so a test can drive it with made-up ones.
#pragma once

#include <stdint.h>

namespace tailor {

/// On a core shared with a busy process, a second thread costs more than it gives, two
/// ways: a worker the system preempts inside a task holds the caller for a time slice
/// (milliseconds) at the end of a job, and a worker woken for a job lands on the caller's
/// core and preempts it. A forward pass runs hundreds of jobs, so either adds up to more
/// than the second core saves. The pool reports both (back_off(), end_window()); each
/// starts a back-off period in which jobs run on the caller alone, the workers asleep.
/// After it, jobs run on all threads again (the probe). The next period is twice as long
/// (up to kMaxNanos) when the contention comes back before the caller ran on all threads
/// for as long as the last period in clean windows, and kMinNanos otherwise. Windows count the
/// caller's CPU time, not the clock's: a caller that waits for a core, or an application
/// that runs no job for a while, does not make a window clean. Used by the one thread that
/// calls the pool's run().
class ThreadBackoff final {
 public:
  /// A job is late when the caller, out of tasks, waited on the other threads' last ones
  /// longer than this plus twice its own mean task time (what an on-time worker's last
  /// task may still need).
  static constexpr int64_t kLateNanos = 50000;
  /// The caller preempted this often a window of its CPU time shares its core (alone,
  /// beside a busy process on the other core, it is preempted about never).
  static constexpr int64_t kPreemptionLimit = 2;
  static constexpr int64_t kWindowNanos = 1000000;
  static constexpr int64_t kMinNanos = 2000000;
  static constexpr int64_t kMaxNanos = 256000000;

  /// Whether a job starting at `now` runs on the caller alone.
  bool solo(int64_t now) const { return now < solo_until_; }

  /// Whether the window is over at `now`, so the pool asks the system for the caller's
  /// preemptions and CPU time (once a window: it is a system call).
  bool window_over(int64_t now) const { return now >= window_end_; }

  /// Ends the window at `now`, given the caller's preemption count and CPU time, and starts
  /// the next; backs off (and returns true) when the count rose kPreemptionLimit or more
  /// for each kWindowNanos of CPU time (at least one) since the window began.
  bool end_window(int64_t now, int64_t preemptions, int64_t cpu_nanos) {
    const int64_t cpu = cpu_nanos - window_cpu_;
    const int64_t windows = cpu / kWindowNanos;
    const bool running = window_end_ != 0;
    const bool contended = running && preemptions - window_preemptions_ >=
                                          kPreemptionLimit * (windows < 1 ? 1 : windows);
    window_end_ = now + kWindowNanos;
    window_preemptions_ = preemptions;
    window_cpu_ = cpu_nanos;
    if (contended) {
      back_off(now);
    } else if (running) {
      clean_nanos_ += cpu;
    }
    return contended;
  }

  /// Starts a back-off period at `now`: the pool calls it when a job's end waited on a late
  /// worker, end_window() when the caller was preempted often.
  void back_off(int64_t now) {
    if (period_ > 0 && clean_nanos_ < period_) {
      period_ = period_ > kMaxNanos / 2 ? kMaxNanos : period_ * 2;
    } else {
      period_ = kMinNanos;
    }
    solo_until_ = now + period_;
    clean_nanos_ = 0;
    window_end_ = 0;  // the first job after the period starts a new window
  }

  /// The last back-off period's length (0 before the first).
  int64_t period() const { return period_; }

 private:
  int64_t solo_until_ = 0;
  int64_t period_ = 0;
  int64_t clean_nanos_ = 0;  // the caller's CPU time in clean windows since the last period
  int64_t window_end_ = 0;   // 0: no window running
  int64_t window_preemptions_ = 0;
  int64_t window_cpu_ = 0;
};

}  // namespace tailor
