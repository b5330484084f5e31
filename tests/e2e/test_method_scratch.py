"""Kernel scratch is sized per method, from the kernels that method calls (issue 26,
item 3): in one runtime holding the MLP and a convolution with a Winograd path, the MLP's
method reserves the GEMM's slice (tens of KB a thread), the convolution's its 4 MB."""

import glob
import os
import re
import subprocess

import numpy as np
import pytest
import torch
import yaml

from codegen import build_layout
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-method-scratch")


def _declared(op: str) -> int:
    """The optimized library's scratch_bytes for `op`."""
    with open(os.path.join(REPO, "manifests", "kernels", "optimized.yaml")) as f:
        return next(e["kernels"][0]["scratch_bytes"] for e in yaml.safe_load(f)
                    if e.get("op") == op)  # (custom operators are declared by `func:`)


@pytest.fixture(scope="module")
def built():
    from exporter.export import export
    conv = torch.nn.Sequential(torch.nn.Conv2d(32, 32, 3, padding=1), torch.nn.ReLU()).eval()
    x = torch.randn(1, 32, 16, 16, generator=torch.Generator().manual_seed(0))
    folder = os.path.join(REPO, BUILD)
    os.makedirs(folder, exist_ok=True)
    export(conv, (x,)).save(os.path.join(folder, "conv.pte"))
    np.save(os.path.join(folder, "x.npy"), x.numpy())
    with torch.no_grad():
        np.save(os.path.join(folder, "want.npy"), conv(x).numpy())
    run_scons("model=mlp", f"programs={BUILD}/conv.pte", "build_dir=" + BUILD)
    [runner] = glob.glob(os.path.join(folder, "host", "*", "bin", "runner"))
    return runner, folder


def _run(runner, *args):
    return subprocess.run([runner, *args], capture_output=True, text=True)


def _planned(runner, pte, threads):
    """The bytes loading the method for `threads` threads plans (its limit error says)."""
    r = _run(runner, pte, "--max-memory", "1", "--threads", str(threads))
    found = re.search(r"plans (\d+) bytes of memory", r.stderr)
    assert r.returncode != 0 and found, r.stdout + r.stderr
    return int(found[1])


def test_each_method_reserves_the_scratch_of_its_own_kernels(built):
    runner, folder = built
    mlp = os.path.join(os.path.dirname(os.path.dirname(runner)), "mlp.pte")
    conv = os.path.join(folder, "conv.pte")
    gemm, winograd = _declared("addmm.out"), _declared("convolution.out")
    assert gemm < 100_000 < 4_000_000 < winograd
    listed = _run(runner, mlp, "--list-methods")
    assert listed.stdout == f"forward: 1 inputs, 1 outputs, kernel scratch {gemm} bytes a thread\n"
    listed = _run(runner, conv, "--list-methods")
    assert f"kernel scratch {winograd} bytes a thread" in listed.stdout, listed.stdout
    # Four threads: four GEMM slices for the MLP, well under one Winograd slice.
    assert _planned(runner, mlp, 4) < 4 * gemm + 64 * 1024 < winograd
    assert _planned(runner, conv, 1) > winograd
    # Both still run right, on two threads.
    r = _run(runner, mlp, "--check", "--threads", "2")
    assert r.returncode == 0 and "check passed" in r.stdout, r.stdout + r.stderr
    r = _run(runner, conv, "--input", os.path.join(folder, "x.npy"), "--output",
             os.path.join(folder, "got.npy"), "--threads", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    np.testing.assert_allclose(np.load(os.path.join(folder, "got.npy")),
                               np.load(os.path.join(folder, "want.npy")), atol=1e-4, rtol=1e-4)
