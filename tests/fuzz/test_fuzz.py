"""Fuzzing as a habit: every test run fuzzes load + method load + execute for a while.

fuzz/build.py builds the libFuzzer target (`scons sanitize=fuzzer` for host-xnnpack:
every library and the XNNPACK delegate; here with the kernels the seeds select, not
select=all) and exports the seed programs; the run replays fuzz/regressions/ too. Longer
runs: `python -m fuzz.build --run 600`.
"""

import glob
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from codegen import build_layout  # noqa: E402
from fuzz import build, seed_programs  # noqa: E402
from tests.conftest import run_scons  # noqa: E402
from tests.ops import harness  # noqa: E402

SECONDS = 30
SEED_BUILD = build_layout.tree("test-fuzz-seeds")


# A sanitizer's, or libFuzzer's own, report of a crash, leak or timeout.
REPORTS = ("ERROR: AddressSanitizer", "LeakSanitizer", "runtime error:", "ERROR: libFuzzer",
           "==ERROR")
# What the seeds must reach in the fuzzer: a kernel of each library besides portable,
# and the XNNPACK delegate (where it is installed), each through a few of its files.
REACHED = {
    "optimized": ("kernels/optimized/op_convolution.cpp", "kernels/optimized/op_addmm.cpp",
                  "kernels/optimized/op_bmm.cpp", "kernels/optimized/op_max_pool2d_with_indices.cpp"),
    "quantized": ("kernels/quantized/op_linear.cpp", "kernels/quantized/op_embedding_byte.cpp"),
    "portable": ("kernels/portable/op_embedding.cpp", "kernels/portable/op_cat.cpp"),
    "xnnpack": ("backends/xnnpack/runtime/xnnpack_backend.cpp",
                "backends/xnnpack/runtime/xnnpack_graph.cpp"),
}


@pytest.fixture(scope="module")
def fuzzer():
    """(binary, seeds directory): built (cached) by fuzz/build.py, with the seeds' kernels
    only: every kernel under the sanitizers and libFuzzer's coverage takes minutes to
    compile (`python -m fuzz.build`, for long runs, builds them all)."""
    seeds = build.build_seeds()
    try:
        return build.build_fuzzer(seeds, select="used"), seeds
    except build.Unavailable as e:
        pytest.skip("libFuzzer is not available: %s" % e)


def _assert_clean(proc):
    report = proc.stderr[-8000:]
    for marker in REPORTS:
        assert marker not in proc.stderr, report
    assert proc.returncode == 0, report


def test_fuzz_program_load_and_execute(fuzzer):
    binary, seeds = fuzzer
    assert sorted(os.listdir(seeds)) == sorted(
        [seed[0] + ".pte" for seed in build.SEED_MODELS] +
        [name + ".pte" for name in seed_programs.SEEDS])
    assert max(os.path.getsize(os.path.join(seeds, n)) for n in os.listdir(seeds)) <= build.MAX_LEN
    proc = build.fuzz(binary, [seeds, build.CORPUS, build.REGRESSIONS], "-max_total_time=%d" % SECONDS,
                      "-timeout=20", "-print_final_stats=1", timeout=SECONDS + 120)
    _assert_clean(proc)
    # It really ran: the seeds were executed and mutated.
    assert "stat::number_of_executed_units" in proc.stderr, proc.stderr[-8000:]
    assert build.executed_units(proc.stderr) > len(os.listdir(seeds)), proc.stderr[-8000:]


def test_seeds_reach_every_library(fuzzer):
    # The fuzzer links the optimized and quantized kernels and the XNNPACK delegate, and
    # its seeds run through them: the functions each seed run covered, by source file.
    binary, seeds = fuzzer
    proc = build.fuzz(binary, [seeds], "-runs=0", "-print_coverage=1", timeout=300)
    _assert_clean(proc)
    covered = {line.rsplit(" ", 1)[-1].rsplit(":", 1)[0].replace("/./", "/")
               for line in proc.stderr.splitlines() if line.startswith("COVERED_FUNC:")}
    expected = dict(REACHED)
    if build._fuzz_target() != build.XNNPACK_TARGET:
        del expected["xnnpack"]  # XNNPACK is not installed: the fuzzer is a host build
    for library, files in expected.items():
        missed = [f for f in files if os.path.join(REPO, f) not in covered]
        assert not missed, "%s: the seeds never ran %s" % (library, ", ".join(missed))


def test_the_fuzzer_has_no_kernels_above_this_cpus_level(fuzzer):
    # It runs only where it was built, so the vector code of the CPU levels above this
    # machine's is left out (runtime/kernel/cpu_level.h, kCpuLevelCeiling): it took half
    # the fuzzer's compile time. The levels this CPU has are all there.
    binary, _ = fuzzer
    assert harness.vector_levels_in(binary) == harness.cpu_levels()[1:]


def test_regressions_replay(fuzzer):
    # Each input that once crashed the fuzzer runs clean, one by one.
    binary, _ = fuzzer
    inputs = sorted(glob.glob(os.path.join(build.REGRESSIONS, "*.pte")))
    assert inputs
    proc = subprocess.run([binary, *inputs], capture_output=True, text=True, errors="replace",
                          env=dict(os.environ, **build.SANITIZER_ENV), timeout=300)
    _assert_clean(proc)
    assert proc.stderr.count("Running: ") == len(inputs), proc.stderr[-4000:]


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
    runner = build_layout.outputs(os.path.join(REPO, build_layout.output_dir(
        programs=paths, build_dir=SEED_BUILD, libraries=["portable", "prim"]))).runner
    for path in paths:
        listing = subprocess.run([runner, path, "--list-methods"], capture_output=True,
                                 text=True, check=True).stdout
        methods = [line.split(":")[0] for line in listing.splitlines() if ":" in line]
        assert methods, listing
        for method in methods:
            proc = subprocess.run([runner, path, "--method", method], capture_output=True,
                                  text=True)
            assert proc.returncode == 0, (path, method, proc.stdout + proc.stderr)


def test_the_fuzzer_build_records_its_binary_in_outputs_json(tmp_path):
    # fuzz/build.py reads the binary from outputs.json, in the directory the layout names
    # for the variant: scons writes that file there, with the fuzzer in it. (Only
    # outputs.json is asked for, so nothing compiles.)
    try:
        build.clang()
    except build.Unavailable as e:
        pytest.skip("libFuzzer is not available: %s" % e)
    for name, make in seed_programs.SEEDS.items():
        (tmp_path / (name + ".pte")).write_bytes(make())
    options, out = build.fuzzer_build(str(tmp_path))
    run_scons(*options, os.path.join(out, build_layout.OUTPUTS))
    made = build_layout.outputs(out)
    assert made.fuzzer == build_layout.fuzzer(out) and made.runner == build_layout.runner(out)


def test_fuzzer_variant_refuses_a_foreign_target():
    # libFuzzer runs where it is built: one clear error, before anything compiles.
    proc = run_scons("target=linux-aarch64", "sanitize=fuzzer", "ops=aten::add.out",
                     "build_dir=" + build_layout.tree("test-fuzz-foreign"), check=False)
    assert proc.returncode != 0
    assert ("sanitize=fuzzer: target linux-aarch64 (manifests/targets/linux-aarch64.yaml) is "
            "not this machine's" in proc.stdout), proc.stdout + proc.stderr
    assert "compiling" not in proc.stdout
