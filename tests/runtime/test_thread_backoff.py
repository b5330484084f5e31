"""The thread pool's back-off rule (runtime/kernel/thread_backoff.h) driven with made-up
times by a C++ probe: when jobs run on the caller alone, how the period doubles while the
contention lasts, stops at its cap, and starts again from the least once jobs ran on all
threads for a whole period. tests/runtime/test_thread_pool.py runs it in the real pool."""

from tests.cxx_probe import run_probe

_PROBE = r"""
#include <stdio.h>
#include "runtime/kernel/thread_backoff.h"

// Reads "solo T" (a job starts) and "late T" (a job met contention) lines, T in
// microseconds; prints, for each, whether the job runs on the caller alone and the period
// after it (microseconds).
int main() {
  tailor::ThreadBackoff b;
  char op[16];
  long long t;
  while (scanf("%15s %lld", op, &t) == 2) {
    int solo = 0;
    if (op[0] == 's') {
      solo = b.solo(t * 1000);
    } else {
      b.back_off(t * 1000);
    }
    printf("%d %lld\n", solo, static_cast<long long>(b.period() / 1000));
  }
  return 0;
}
"""

MIN_US, MAX_US = 2000, 256000  # ThreadBackoff's kMinNanos and kMaxNanos


def _drive(tmp_path, steps):
    """[(op, time us)] -> [(solo, period us)]."""
    lines = [f"{op} {t}" for op, t in steps]
    out = run_probe(tmp_path, _PROBE, "\n".join(lines) + "\n").split()
    return [(int(a), int(p)) for a, p in zip(out[::2], out[1::2])]


def test_a_late_job_backs_off_for_the_least_period(tmp_path):
    got = _drive(tmp_path, [("solo", 0), ("late", 100), ("solo", 101),
                            ("solo", 100 + MIN_US - 1), ("solo", 100 + MIN_US)])
    assert got == [(0, 0), (0, MIN_US), (1, MIN_US), (1, MIN_US), (0, MIN_US)]


def test_the_period_doubles_while_contention_lasts_up_to_its_cap(tmp_path):
    # Each probe meets the contention within its period, however long after the period
    # before the application starts its next job.
    steps, t, periods = [("solo", 0), ("late", 0)], 0, [MIN_US]
    for i in range(1, 10):
        t += periods[-1] + (10 if i % 2 else 3600 * 10**6)
        steps += [("solo", t), ("late", t + periods[-1] - 1)]
        periods.append(min(MIN_US << i, MAX_US))
        t += periods[-2] - 1
    got = _drive(tmp_path, steps)
    assert [p for (_, p), (op, _) in zip(got, steps) if op == "late"] == periods
    assert [s for (s, _), (op, _) in zip(got, steps) if op == "solo"] == [0] * 10
    assert periods[-2:] == [MAX_US, MAX_US]


def test_a_whole_period_on_all_threads_starts_again_from_the_least(tmp_path):
    # Late, late again 1 ms into the probe (doubled: 4 ms), then a probe that ran 4 ms on
    # all threads before the next late job: back to the least.
    got = _drive(tmp_path, [
        ("solo", 0), ("late", 0),
        ("solo", MIN_US), ("late", MIN_US + 1000),
        ("solo", MIN_US + 1000 + 1), ("solo", MIN_US + 1000 + 2 * MIN_US),
        ("solo", 7000 + 10), ("late", 7000 + 10 + 2 * MIN_US),
    ])
    assert got == [(0, 0), (0, MIN_US), (0, MIN_US), (0, 2 * MIN_US),
                   (1, 2 * MIN_US), (0, 2 * MIN_US), (0, 2 * MIN_US), (0, MIN_US)]
