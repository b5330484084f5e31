"""End to end on the host for manifests/models/mlp_ln.yaml (LayerNorm + residual):
scons model=mlp_ln run=1, then the built runner against torch eager at several batch
sizes on inputs the test makes."""

import os
import subprocess

import numpy as np
import pytest
import torch

from tests.conftest import REPO, run_scons

BUILD = "build/test-e2e-mlp_ln"
OUT = os.path.join(REPO, BUILD, "host", "mlp_ln")


@pytest.fixture(scope="module")
def built():
    run_scons("model=mlp_ln", "run=1", "build_dir=" + BUILD)
    return OUT


def _run(program_dir: str, x: np.ndarray, tmp_path) -> subprocess.CompletedProcess:
    np.save(tmp_path / "x.npy", x)
    return subprocess.run([os.path.join(program_dir, "bin", "runner"),
                           os.path.join(program_dir, "mlp_ln.pte"),
                           "--input", str(tmp_path / "x.npy"),
                           "--output", str(tmp_path / "y.npy")],
                          capture_output=True, text=True)


def test_self_check_passed(built):
    with open(os.path.join(built, "mlp_ln.check.txt")) as f:
        assert f.read().strip().endswith("check passed")
    with open(os.path.join(built, "selected_ops.yaml")) as f:
        assert "aten::native_layer_norm.out" in f.read()


@pytest.mark.parametrize("batch", [1, 5, 8])
def test_runner_matches_torch(built, tmp_path, batch):
    from examples.mlp.mlp_ln import make_mlp_ln
    module, _ = make_mlp_ln()
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(100 + batch))
    proc = _run(built, x.numpy(), tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = np.load(tmp_path / "y.npy")
    with torch.no_grad():
        want = module(x).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)


def test_batch_beyond_the_bound_is_rejected(built, tmp_path):
    proc = _run(built, np.zeros((9, 16), dtype=np.float32), tmp_path)
    assert proc.returncode == 1
    assert "input 0" in proc.stdout + proc.stderr
