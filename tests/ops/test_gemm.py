"""The optimized GEMM (kernels/optimized/util/gemm.h) and its CPU-level dispatch.

The op harness runs the mm/addmm/bmm/linear cases on the optimized library at every level
this machine has (test_ops.py, optimized and optimized@<level>), on one thread. Here: each
level's micro-kernels against a double-precision triple loop, on one thread and split over
a thread pool (bench/gemm.py's check, NEON under qemu); that TL_CPU_LEVEL really reaches
the runtime's choice; and products large enough to be split, run with --threads 2 and 3.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import REPO
from tests.ops import harness
from tests.ops.cases import Arg, Constant, OpCase


def bench_check(script: str, *args: str) -> str:
    """The output of `bench/<script> --no-time ARGS` (a kernel bench's check), which must pass."""
    proc = subprocess.run([sys.executable, os.path.join(REPO, "bench", script), "--no-time",
                           *args], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return proc.stdout


def skip_without_cross_tools() -> None:
    for tool in ("aarch64-linux-gnu-g++", "qemu-aarch64"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found; apt-get install -y g++-aarch64-linux-gnu qemu-user")


def test_every_host_level_matches_the_triple_loop():
    out = bench_check("gemm.py")
    for level in harness.cpu_levels():
        name = {"baseline": "generic"}.get(level, level)
        assert f"{name} (" in out, f"level {level} was not checked:\n{out}"
    assert "0 failed" in out and "products checked" in out, out


def test_neon_matches_the_triple_loop_under_qemu():
    skip_without_cross_tools()
    out = bench_check("gemm.py", "--target", "linux-aarch64")
    assert "neon (8 x 8 tiles)" in out and "0 failed" in out, out


@pytest.fixture(scope="module")
def mm_runner():
    """A runtime (host: optimized, portable, prim) running one Float mm program."""
    case = OpCase("mm.default", ("Float",), [((13, 70), (70, 33))], name="cpu_levels")
    exported = harness.export_case(case, "Float", harness._exporter_fingerprint())
    build = harness.build_library("optimized", harness.Selection({(case.id, "Float"): exported},
                                                                 {}))
    return build, exported


@pytest.mark.parametrize("level", harness.cpu_levels())
def test_the_level_cap_reaches_the_kernels(mm_runner, level, tmp_path):
    build, exported = mm_runner
    out = tmp_path / "out.npy"
    proc = subprocess.run([build.runner, os.path.join(REPO, exported.pte), "--input",
                           exported.inputs[0], "--input", exported.inputs[1], "--output",
                           str(out), "--verbose"], capture_output=True, text=True,
                          env=dict(os.environ, TL_CPU_LEVEL=level))
    assert proc.returncode == 0, proc.stderr
    best = harness.cpu_levels()[-1]
    assert f"CPU level {level} (this CPU: {best})" in proc.stderr, proc.stderr
    np.testing.assert_allclose(np.load(out), np.load(exported.expected[0]), rtol=1e-5, atol=1e-5)


def test_a_bad_level_cap_is_reported_and_ignored(mm_runner):
    build, exported = mm_runner
    proc = subprocess.run([build.runner, os.path.join(REPO, exported.pte), "--verbose"],
                          capture_output=True, text=True, env=dict(os.environ, TL_CPU_LEVEL="sse9"))
    assert proc.returncode == 0, proc.stderr
    assert "CPU level cap 'sse9' is not baseline, avx2 or avx512; ignored" in proc.stderr
    assert f"CPU level {harness.cpu_levels()[-1]} (" in proc.stderr


# Products above the size the GEMM splits over threads (kernels/optimized/util/gemm.h,
# kGemmParallelMin): by column strips, by row tiles (narrow c), by batch.
THREADED = [OpCase("mm.default", ("Float",), [((129, 300), (300, 65)), ((200, 600), (600, 7))],
                   domain="small", name="threads"),
            OpCase("addmm.default", ("Float",), [((257,), (33, 129), (129, 257))],
                   kwargs={"beta": 0.5, "alpha": 2.0}, domain="small", name="threads"),
            OpCase("bmm.default", ("Float",), [((4, 64, 32), (4, 32, 64)), ((1, 65, 300), (1, 300, 129))],
                   domain="small", name="threads"),
            # A depthwise convolution splits its planes (util/conv_depthwise.h).
            OpCase("convolution.default", ("Float",),
                   [((2, 33, 40, 41), Constant((33, 1, 3, 3)), Constant((33,)), Arg([1, 1]),
                     Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(33))],
                   domain="small", name="threads_depthwise")]


@pytest.fixture(scope="module")
def threaded_build():
    fingerprint = harness._exporter_fingerprint()
    exported = {(c.id, "Float"): harness.export_case(c, "Float", fingerprint) for c in THREADED}
    return harness.build_library("optimized", harness.Selection(exported, {})), exported


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_threads_give_the_same_products(threaded_build, threads, tmp_path):
    build, exported = threaded_build
    for e in exported.values():
        outs = harness.run_outputs(build, e, str(tmp_path), int(threads))
        for got, want in zip(outs, e.expected):  # integer-valued: exact in any order
            np.testing.assert_array_equal(np.load(got), np.load(want), err_msg=e.case.id)
