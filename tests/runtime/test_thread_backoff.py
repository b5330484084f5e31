"""The thread pool's back-off rule (runtime/kernel/thread_backoff.h) driven with made-up
times and preemption counts by a C++ probe: when jobs run on the caller alone, how the
period doubles while the contention lasts, stops at its cap, and starts again from the
least after a clean period. tests/runtime/test_thread_pool.py runs it in the real pool."""

from tests.cxx_probe import run_probe

_PROBE = r"""
#include <stdio.h>
#include "runtime/kernel/thread_backoff.h"

// Reads "solo T", "late T" or "window T PREEMPTIONS CPU" lines (times in microseconds);
// prints, for each, the answer and the period after it (microseconds).
int main() {
  tailor::ThreadBackoff b;
  char op[16];
  long long t;
  while (scanf("%15s %lld", op, &t) == 2) {
    const long long now = t * 1000;
    int answer = 0;
    if (op[0] == 's') {
      answer = b.solo(now);
    } else if (op[0] == 'l') {
      b.back_off(now);
    } else {
      long long preemptions, cpu;
      if (scanf("%lld %lld", &preemptions, &cpu) != 2) return 1;
      answer = b.window_over(now) ? (b.end_window(now, preemptions, cpu * 1000) ? 2 : 1) : 0;
    }
    printf("%d %lld\n", answer, static_cast<long long>(b.period() / 1000));
  }
  return 0;
}
"""

MIN_US, MAX_US, WINDOW_US = 2000, 256000, 1000  # ThreadBackoff's constants


def _drive(tmp_path, steps):
    """[(op, time us[, preemptions, cpu us])] -> [(answer, period us)]."""
    lines = [" ".join(str(x) for x in step) for step in steps]
    out = run_probe(tmp_path, _PROBE, "\n".join(lines) + "\n").split()
    return [(int(a), int(p)) for a, p in zip(out[::2], out[1::2])]


def test_a_late_job_backs_off_for_the_least_period(tmp_path):
    got = _drive(tmp_path, [("solo", 0), ("late", 100), ("solo", 101),
                            ("solo", 100 + MIN_US - 1), ("solo", 100 + MIN_US)])
    assert got == [(0, 0), (0, MIN_US), (1, MIN_US), (1, MIN_US), (0, MIN_US)]


def test_the_period_doubles_while_contention_lasts_up_to_its_cap(tmp_path):
    # Each late job comes right after the period before, or an hour after it: no clean
    # window ran between them either way (windows count the caller's CPU time).
    steps, t, periods = [], 0, []
    for i in range(10):
        steps.append(("late", t))
        periods.append(min(MIN_US << i, MAX_US))
        t += periods[-1] + (10 if i % 2 else 3600 * 10**6)
    assert [p for _, p in _drive(tmp_path, steps)] == periods
    assert periods[-2:] == [MAX_US, MAX_US]


def test_clean_windows_as_long_as_the_period_start_again_from_the_least(tmp_path):
    # Late twice (doubled: 4 ms), then windows in which the caller ran 3 ms on all threads
    # (late again: doubled, 8 ms), then 8 ms, a whole period (late: back to the least).
    def clean_windows(start, cpu_ms, cpu0):
        return [("window", start + i * WINDOW_US, 0, cpu0 + i * WINDOW_US)
                for i in range(cpu_ms + 1)]
    steps = [("late", 0), ("late", MIN_US)]                        # solo until 6 ms
    steps += clean_windows(3 * MIN_US, 3, 0) + [("late", 9500)]     # solo until 17.5 ms
    steps += clean_windows(17500, 8, 10**6) + [("late", 30000)]
    periods = [p for (_, p), step in zip(_drive(tmp_path, steps), steps) if step[0] == "late"]
    assert periods == [MIN_US, 2 * MIN_US, 4 * MIN_US, MIN_US]


def test_a_caller_preempted_in_a_window_backs_off(tmp_path):
    got = _drive(tmp_path, [
        ("window", 0, 5, 0),                # the first window starts: no measure yet
        ("window", WINDOW_US // 2, 99, 0),  # not over: the count is not even read
        ("window", WINDOW_US, 6, 900),      # once in a window: clean
        ("window", 2 * WINDOW_US, 8, 1000),  # twice, in 0.1 ms of CPU time: backs off
        ("solo", 2 * WINDOW_US + 1),
        ("window", 2 * WINDOW_US + MIN_US, 8, 1100),  # the period over: a new window
        ("window", 30 * WINDOW_US, 28, 12100),  # 20 in 11 ms of CPU time: clean
        ("window", 31 * WINDOW_US, 29, 12200),  # 1: clean, however long the window
    ])
    assert got == [(1, 0), (0, 0), (1, 0), (2, MIN_US), (1, MIN_US), (1, MIN_US),
                   (1, MIN_US), (1, MIN_US)]
