"""Numeric debugging finds a wrong kernel: a copy of the sources gets a test-only kernel
library (wrong_kernels/: a relu.out that leaks negative values) ahead of the real ones;
its MLP runtime fails the check, and the inspector, comparing the runner's intermediate
outputs with eager torch, points at the relu instruction, not the layer before it."""

import os
import shutil
import subprocess
import sys

from codegen import build_layout
from tests.conftest import REPO, SCONS
from tests.trace.source_tree import copy_sources

BUILD = build_layout.tree("test-trace-wrong")
CACHE = os.path.join(REPO, build_layout.tree("test-trace-cache"))


def test_wrong_kernel_is_located_at_its_instruction(tmp_path):
    tree = copy_sources(str(tmp_path / "src"))
    shutil.copy(os.path.join(tree, "tests/trace/wrong_kernels/wrong.yaml"),
                os.path.join(tree, "manifests/kernels/wrong.yaml"))
    build = subprocess.run([SCONS, "-j2", "model=mlp", "trace=1", "build_dir=" + BUILD,
                            "libraries=wrong,optimized,portable,prim", "cache=" + CACHE],
                           cwd=tree, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    out = os.path.join(tree, build_layout.output_dir(
        ["mlp"], build_dir=BUILD, trace=True, libraries=["wrong", "optimized", "portable", "prim"]))
    program, dump = build_layout.program(out, "mlp"), str(tmp_path / "dump")

    check = subprocess.run([build_layout.runner(out), program, "--check",
                            "--dump-intermediates", dump], capture_output=True, text=True)
    assert check.returncode == 1 and "check FAILED" in check.stdout

    found = subprocess.run([sys.executable, "-m", "inspector", program, "--dump-dir", dump,
                            "--manifest", "manifests/models/mlp.yaml"],
                           cwd=tree, capture_output=True, text=True)
    assert found.returncode == 1, found.stdout + found.stderr
    rows = {line.split()[0]: line for line in found.stdout.splitlines()
            if line.split() and line.split()[0].isdigit()}
    assert "OVER" not in rows["0"] and "OVER" in rows["1"] and "aten::relu.out" in rows["1"]
    verdict = found.stdout.strip().splitlines()[-1]
    assert verdict.startswith("first instruction over relative error 0.0001: #1 aten::relu.out")
    assert "in relu at model.py:22" in verdict
