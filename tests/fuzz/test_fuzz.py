"""Fuzzing as a habit: every test run fuzzes load + method load + execute for a while.

fuzz/build.py builds the libFuzzer target (cached in build/fuzz/ by a digest of the
runtime, kernels and codegen; the first build takes minutes) and exports the example
programs as seeds; the run replays fuzz/regressions/ too. Longer runs:
`python -m fuzz.build --run 600`.
"""

import glob
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from fuzz import build, seed_programs  # noqa: E402
from tests.conftest import run_scons  # noqa: E402

SECONDS = 30
SEED_BUILD = "build/test-fuzz-seeds"


def test_fuzz_program_load_and_execute():
    try:
        binary = build.build_fuzzer()
    except build.Unavailable as e:
        pytest.skip("libFuzzer is not available: %s" % e)
    seeds = build.build_seeds()
    assert sorted(os.listdir(seeds)) == sorted(
        [name + ".pte" for name, _, _ in build.SEED_MODELS] +
        [name + ".pte" for name in seed_programs.SEEDS])
    assert max(os.path.getsize(os.path.join(seeds, n)) for n in os.listdir(seeds)) <= build.MAX_LEN
    proc = build.fuzz(binary, [seeds, build.CORPUS, build.REGRESSIONS], "-max_total_time=%d" % SECONDS,
                      "-timeout=20", "-print_final_stats=1", timeout=SECONDS + 120)
    report = proc.stderr[-8000:]
    for marker in ("ERROR: AddressSanitizer", "LeakSanitizer", "runtime error:",
                   "ERROR: libFuzzer", "==ERROR"):
        assert marker not in proc.stderr, report
    assert proc.returncode == 0, report
    # It really ran: the seeds were executed and mutated.
    assert "stat::number_of_executed_units" in proc.stderr, report
    assert build.executed_units(proc.stderr) > len(os.listdir(seeds)), report


def test_hand_built_seeds_load_and_run():
    # A seed the runtime refused at load would leave the fuzzer mutating error paths only:
    # each must load and run every method through a real build of its operators.
    programs = os.path.join(REPO, SEED_BUILD, "programs")
    os.makedirs(programs, exist_ok=True)
    paths = []
    for name, make in seed_programs.SEEDS.items():
        paths.append(os.path.join(programs, name + ".pte"))
        with open(paths[-1], "wb") as f:
            f.write(make())
    run_scons("programs=" + ",".join(paths), "libraries=portable,prim",
              "build_dir=" + SEED_BUILD)
    [runner] = glob.glob(os.path.join(REPO, SEED_BUILD, "host", "*", "bin", "runner"))
    for path in paths:
        listing = subprocess.run([runner, path, "--list-methods"], capture_output=True,
                                 text=True, check=True).stdout
        methods = [line.split(":")[0] for line in listing.splitlines() if ":" in line]
        assert methods, listing
        for method in methods:
            proc = subprocess.run([runner, path, "--method", method], capture_output=True,
                                  text=True)
            assert proc.returncode == 0, (path, method, proc.stdout + proc.stderr)
