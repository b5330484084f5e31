"""The quantized linear's kernel sets (kernels/quantized/util/qlinear.h) against its plain C++
one, and split over threads against one thread (bench/qlinear.py's check): every set this
machine runs (AVX2, AVX-512 VNNI where /proc/cpuinfo lists it), and on linux-aarch64 under
qemu both NEON variants (smull, and sdot built with +dotprod). The op harness runs the
quantized cases through the runtime at each CPU level (test_ops.py: quantized,
quantized@<level>)."""

import os
import re
import subprocess
import sys

from tests.ops import harness
from tests.ops.test_gemm import REPO, bench_check, skip_without_cross_tools


def test_every_host_kernel_set_matches_the_plain_one():
    out = bench_check("qlinear.py")
    names = []
    if "avx2" in harness.cpu_levels():
        names.append("avx2")
    if {"avx512_vnni", "avx512vl"} <= harness.cpu_flags() and "avx512" in harness.cpu_levels():
        names.append("avx512vnni")
    for name in names:  # each with a prefill GEMM for both weight widths and weight-only
        assert re.search(rf"{name}: [1-9]\d* products checked against generic "
                         r"\(prefill GEMM: int4 int8 int8-weight\)", out), out
    assert " 0 failed" in out, out


def test_neon_and_dotprod_match_the_plain_one_under_qemu():
    skip_without_cross_tools()
    out = bench_check("qlinear.py", "--target", "linux-aarch64")
    for name in ("neon", "neon-dotprod"):
        assert re.search(rf"{name}: [1-9]\d* products checked against generic "
                         r"\(prefill GEMM: int4 int8\)", out), out
    assert out.count(" 0 failed") == 2, out


def test_decode_bench_times_this_tree_beside_another_revision():
    # --against HEAD: the committed kernels linked beside the working tree's, one binary.
    proc = subprocess.run([sys.executable, os.path.join(REPO, "bench", "qlinear.py"), "--decode",
                           "--against", "HEAD", "--reps", "1"], cwd=REPO, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    rows = re.findall(r"^\| (\S+ \d+x\d+) \| (\S+(?: \(HEAD\))?) \| ([\d.]+) \| ([\d.]+) \|",
                      proc.stdout, re.M)
    sets = ["avx2"] if "avx2" in harness.cpu_levels() else []
    if {"avx512_vnni", "avx512vl"} <= harness.cpu_flags() and "avx512" in harness.cpu_levels():
        sets.append("avx512vnni")
    shapes = ["q/o 2048x2048", "k/v 512x2048", "up/gate 8192x2048", "down 2048x8192"]
    want = [(shape, label) for shape in shapes for name in sets
            for label in (f"{name} (HEAD)", name)]
    assert [(shape, label) for shape, label, _, _ in rows] == want, proc.stdout
    assert all(float(int4) > 0 and float(int8) > 0 for _, _, int4, int8 in rows), proc.stdout
    assert re.search(r"plain sum of 256 MB: [\d.]+ GB/s", proc.stdout), proc.stdout
