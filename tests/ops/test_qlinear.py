"""The quantized linear's kernel sets (kernels/quantized/util/qlinear.h) against its plain C++
one, and split over threads against one thread (bench/qlinear.py's check): every set this
machine runs (AVX2, AVX-512 VNNI where /proc/cpuinfo lists it), and on linux-aarch64 under
qemu both NEON variants (smull, and sdot built with +dotprod). The op harness runs the
quantized cases through the runtime at each CPU level (test_ops.py: quantized,
quantized@<level>)."""

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.ops import harness


def _qlinear_check(*args: str) -> str:
    proc = subprocess.run([sys.executable, os.path.join(REPO, "bench", "qlinear.py"), "--no-time",
                           *args], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return proc.stdout


def _cpu_flags() -> set[str]:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.partition(":")[2].split())
    return set()


def test_every_host_kernel_set_matches_the_plain_one():
    out = _qlinear_check()
    names = []
    if "avx2" in harness.cpu_levels():
        names.append("avx2")
    if {"avx512_vnni", "avx512vl"} <= _cpu_flags() and "avx512" in harness.cpu_levels():
        names.append("avx512vnni")
    for name in names:
        assert f"{name}: " in out and "products checked against generic" in out, out
    assert " 0 failed" in out, out


def test_neon_and_dotprod_match_the_plain_one_under_qemu():
    for tool in ("aarch64-linux-gnu-g++", "qemu-aarch64"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found; apt-get install -y g++-aarch64-linux-gnu qemu-user")
    out = _qlinear_check("--target", "linux-aarch64")
    assert "neon: " in out and "neon-dotprod: " in out, out
    assert out.count(" 0 failed") == 2, out
