"""End to end on the host for manifests/models/mlp_ln.yaml (LayerNorm + residual):
scons model=mlp_ln run=1 lib=shared, then the runtime's shared library (tailor.Runtime)
against torch eager at several batch sizes on inputs the test makes."""

import os

import numpy as np
import pytest
import torch

import tailor
from codegen import build_layout
from tests.conftest import REPO, passed_check, run_scons

BUILD = build_layout.tree("test-e2e-mlp_ln")
OUT = os.path.join(REPO, build_layout.output_dir(["mlp_ln"], build_dir=BUILD, lib="shared"))


@pytest.fixture(scope="module")
def built():
    run_scons("model=mlp_ln", "run=1", "lib=shared", "build_dir=" + BUILD)
    return OUT


@pytest.fixture(scope="module")
def program(built):
    runtime = tailor.Runtime(os.path.join(built, "lib", "libtailor.so"))
    return runtime.load(os.path.join(built, "mlp_ln.pte"))


def test_self_check_passed(built):
    passed_check(built, "mlp_ln")
    with open(os.path.join(built, "selected_ops.yaml")) as f:
        assert "aten::native_layer_norm.out" in f.read()


@pytest.mark.parametrize("batch", [1, 5, 8])
def test_runtime_matches_torch(program, batch):
    from examples.mlp.mlp_ln import make_mlp_ln
    module, _ = make_mlp_ln()
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(100 + batch))
    [got] = program.run(x.numpy())
    with torch.no_grad():
        want = module(x).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)


def test_batch_beyond_the_bound_is_rejected(program):
    with pytest.raises(tailor.TailorError,
                       match=r"input 0: shape \[9, 16\] does not fit the upper bounds \[8, 16\]"):
        program.run(np.zeros((9, 16), dtype=np.float32))
