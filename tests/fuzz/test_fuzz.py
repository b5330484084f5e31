"""Fuzzing as a habit: every test run fuzzes load + method load + execute for a while.

fuzz/build.py builds the libFuzzer target (cached in build/fuzz/ by a digest of the
runtime, kernels and codegen; the first build takes minutes) and exports the example
programs as seeds; the run replays fuzz/regressions/ too. Longer runs:
`python -m fuzz.build --run 600`.
"""

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from fuzz import build  # noqa: E402

SECONDS = 30


def test_fuzz_program_load_and_execute():
    try:
        binary = build.build_fuzzer()
    except build.Unavailable as e:
        pytest.skip("libFuzzer is not available: %s" % e)
    seeds = build.build_seeds()
    assert sorted(os.listdir(seeds)) == sorted(m + ".pte" for m in build.SEED_MODELS)
    proc = build.fuzz(binary, [seeds, build.REGRESSIONS], "-max_total_time=%d" % SECONDS,
                      "-timeout=20", "-print_final_stats=1", timeout=SECONDS + 120)
    report = proc.stderr[-8000:]
    for marker in ("ERROR: AddressSanitizer", "LeakSanitizer", "runtime error:",
                   "ERROR: libFuzzer", "==ERROR"):
        assert marker not in proc.stderr, report
    assert proc.returncode == 0, report
    # It really ran: the seeds were executed and mutated.
    assert "stat::number_of_executed_units" in proc.stderr, report
    runs = int(proc.stderr.split("stat::number_of_executed_units:")[1].split()[0])
    assert runs > len(build.SEED_MODELS), report
