"""The thread pool's back-off rule (runtime/kernel/thread_backoff.h) driven with made-up
times and preemption counts by a C++ probe: when jobs run on the caller alone, how the
period doubles while the contention lasts, stops at its cap, and starts again from the
least after a clean period. tests/runtime/test_thread_pool.py runs it in the real pool."""

from tests.cxx_probe import run_probe

_PROBE = r"""
#include <stdio.h>
#include "runtime/kernel/thread_backoff.h"

// Reads "solo T", "late T" or "window T PREEMPTIONS" lines (T in microseconds); prints,
// for each, the answer and the period after it (microseconds).
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
      long long preemptions;
      if (scanf("%lld", &preemptions) != 1) return 1;
      answer = b.window_over(now) ? (b.end_window(now, preemptions) ? 2 : 1) : 0;
    }
    printf("%d %lld\n", answer, static_cast<long long>(b.period() / 1000));
  }
  return 0;
}
"""

MIN_US, MAX_US, WINDOW_US = 2000, 256000, 1000  # ThreadBackoff's constants


def _drive(tmp_path, steps):
    """[(op, time us, preemptions or None)] -> [(answer, period us)]."""
    lines = [" ".join(str(x) for x in step if x is not None) for step in steps]
    out = run_probe(tmp_path, _PROBE, "\n".join(lines) + "\n").split()
    return [(int(a), int(p)) for a, p in zip(out[::2], out[1::2])]


def test_a_late_job_backs_off_for_the_least_period(tmp_path):
    got = _drive(tmp_path, [("solo", 0, None), ("late", 100, None), ("solo", 101, None),
                            ("solo", 100 + MIN_US - 1, None), ("solo", 100 + MIN_US, None)])
    assert got == [(0, 0), (0, MIN_US), (1, MIN_US), (1, MIN_US), (0, MIN_US)]


def test_the_period_doubles_while_contention_lasts_up_to_its_cap(tmp_path):
    steps, t, periods = [], 0, []
    for _ in range(10):  # each late job comes right after the period before ended
        steps.append(("late", t, None))
        periods.append(min(MIN_US << len(periods), MAX_US))
        t += periods[-1] + 10
    assert [p for _, p in _drive(tmp_path, steps)] == periods
    assert periods[-2:] == [MAX_US, MAX_US]


def test_a_clean_period_on_all_threads_starts_again_from_the_least(tmp_path):
    # Late, late again 1 us after the period ended (doubled), then a whole doubled period
    # on all threads without a late job: the next late one backs off for the least.
    t1 = MIN_US + 1
    t2 = t1 + 2 * MIN_US + 2 * MIN_US + 1
    got = _drive(tmp_path, [("late", 0, None), ("late", t1, None), ("late", t2, None)])
    assert [p for _, p in got] == [MIN_US, 2 * MIN_US, MIN_US]


def test_a_caller_preempted_in_a_window_backs_off(tmp_path):
    got = _drive(tmp_path, [
        ("window", 0, 5),                  # the first window starts: no measure yet
        ("window", WINDOW_US // 2, 99),    # not over: the count is not even read
        ("window", WINDOW_US, 6),          # once in a window: on time
        ("window", 2 * WINDOW_US, 8),      # twice: backs off
        ("solo", 2 * WINDOW_US + 1, None),
        ("window", 2 * WINDOW_US + MIN_US, 8),  # the period over: a new window starts
        ("window", 13 * WINDOW_US + MIN_US, 28),  # 20 in 11 windows: under 2 a window
    ])
    assert got == [(1, 0), (0, 0), (1, 0), (2, MIN_US), (1, MIN_US), (1, MIN_US),
                   (1, MIN_US)]
