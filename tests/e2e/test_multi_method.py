"""Several methods of one module in one program: the weights they share are stored once,
constant methods carry metadata, and the runner lists the methods and runs any of them."""

import os
import subprocess

import numpy as np
import pytest
import torch
from torch import nn

from codegen import build_layout
from program import model
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-e2e-methods")


class TwoMethods(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.proj = nn.Linear(64, 64)

    def forward(self, x):
        return torch.relu(self.proj(x))

    def scaled(self, x):
        return self.proj(x) * 0.5 + 1


CONSTANTS = {"get_max_seq_len": 16, "get_eos_ids": [1, 2], "get_temperature": 0.5,
             "is_chat": True}


def _export():
    from exporter.export import export
    x = torch.randn(3, 64)
    return export(TwoMethods(), (x,), methods={"scaled": ((x,),)}, constant_methods=CONSTANTS)


@pytest.fixture(scope="module")
def built():
    folder = os.path.join(REPO, BUILD, "programs")
    os.makedirs(folder, exist_ok=True)
    pte = os.path.join(folder, "two_methods.pte")
    _export().save(pte)
    run_scons("programs=" + os.path.relpath(pte, REPO), "build_dir=" + BUILD)
    return os.path.join(REPO, BUILD, "host", "two_methods", "bin", "runner"), pte


def _runner(built, *args: str) -> str:
    runner, pte = built
    proc = subprocess.run([runner, pte, *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_methods_share_one_copy_of_the_weights():
    program = _export()
    assert [m.name for m in program.data.methods] == ["forward", "scaled", *CONSTANTS]
    weight_bytes = 64 * 64 * 4
    assert weight_bytes <= len(program.segment) < 1.5 * weight_bytes
    refs = [{v.constant.offset for v in m.values
             if isinstance(v, model.Tensor) and v.constant is not None}
            for m in program.data.methods[:2]]
    assert refs[0] & refs[1]


def test_the_runner_lists_and_runs_every_method(built, tmp_path):
    listed = [line.partition(", kernel scratch")[0]
              for line in _runner(built, "--list-methods").splitlines()]
    assert listed[:2] == ["forward: 1 inputs, 1 outputs", "scaled: 1 inputs, 1 outputs"]
    assert "get_eos_ids: 0 inputs, 2 outputs" in listed
    x = torch.randn(3, 64, generator=torch.Generator().manual_seed(1))
    np.save(tmp_path / "x.npy", x.numpy())
    module = TwoMethods().eval()
    for name in ("forward", "scaled"):
        out = tmp_path / f"{name}.npy"
        _runner(built, "--method", name, "--input", str(tmp_path / "x.npy"), "--output", str(out))
        with torch.no_grad():
            want = getattr(module, name)(x).numpy()
        np.testing.assert_allclose(np.load(out), want, atol=1e-5, rtol=1e-5)
    eos = _runner(built, "--method", "get_eos_ids")
    assert "output 0: shape [] Long [1]" in eos and "output 1: shape [] Long [2]" in eos
    assert "[0.5]" in _runner(built, "--method", "get_temperature")


def test_bad_methods_get_one_clear_error():
    from exporter.errors import ExportError
    from exporter.export import export
    x = torch.randn(3, 64)
    with pytest.raises(ExportError, match="has no method 'decode'"):
        export(TwoMethods(), (x,), methods={"decode": ((x,),)})
    with pytest.raises(ExportError, match="get_eos_ids.*list of ints"):
        export(TwoMethods(), (x,), constant_methods={"get_eos_ids": ["end"]})
    with pytest.raises(ExportError, match="repeat"):
        export(TwoMethods(), (x,), constant_methods={"forward": 1})
