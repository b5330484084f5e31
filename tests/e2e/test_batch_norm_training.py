"""Training-mode batch norm with running statistics (exporter/batch_norm_training.py):
the kernel updates the statistics in place, they persist across calls like any written
buffer, and the runner's --repeat N outputs are eager's N-th call."""

import os
import subprocess

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from codegen import build_layout
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-e2e-bn-train")


class TrainingBatchNorms(nn.Module):
    """Two batch norms in training mode: the first's statistics are read by nothing else
    (the kernel updates the buffers themselves) and returned; the second's are read by
    an eval batch norm before it (the kernel updates a clone, copied back after the call)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.weight = nn.Parameter(torch.rand(3) + 0.5)
        self.bias = nn.Parameter(torch.randn(3))
        for name in ("mean", "var", "mean2", "var2"):
            self.register_buffer(name, torch.rand(3) + (0.5 if "var" in name else 0.0))

    def forward(self, x):
        y = F.batch_norm(x, self.mean, self.var, self.weight, self.bias, training=True,
                         momentum=0.2, eps=1e-5)
        seen = F.batch_norm(x, self.mean2, self.var2, None, None, training=False)
        z = F.batch_norm(x, self.mean2, self.var2, None, None, training=True, momentum=0.5)
        return y, self.mean, self.var, seen + z


def _input():
    return torch.randn(4, 3, 5, generator=torch.Generator().manual_seed(1)) * 2 + 1


def _eager(repeat: int) -> list:
    module = TrainingBatchNorms()
    with torch.no_grad():
        for _ in range(repeat):
            outs = module(_input())
    return [o.numpy() for o in outs]


@pytest.fixture(scope="module")
def program():
    from exporter.export import export
    return export(TrainingBatchNorms(), (_input(),))


def test_the_statistics_are_updated_in_place(program):
    calls = [program.method.operators[i.op_index].name for i in program.method.instructions]
    assert calls.count("aten::_native_batch_norm_legit") == 2
    # One clone per statistic of the second batch norm (the eval one reads the old values)
    # and the copies back; the first one's buffers are updated where they are.
    assert calls.count("aten::clone") == 4


def test_repeat_gives_the_nth_call_of_eager(program, tmp_path):
    folder = os.path.join(REPO, BUILD, "programs")
    os.makedirs(folder, exist_ok=True)
    pte = os.path.join(folder, "bn_train.pte")
    program.save(pte)
    run_scons("programs=" + os.path.relpath(pte, REPO), "build_dir=" + BUILD)
    runner = build_layout.runner(
        os.path.join(REPO, build_layout.output_dir(programs=[pte], build_dir=BUILD)))
    x = str(tmp_path / "x.npy")
    np.save(x, _input().numpy())
    outs = [str(tmp_path / f"out_{i}.npy") for i in range(4)]
    for repeat in (3, 1):
        proc = subprocess.run([runner, pte, "--input", x, "--output", *outs,
                               "--repeat", str(repeat)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        for got, want in zip(outs, _eager(repeat), strict=True):
            np.testing.assert_allclose(np.load(got), want, atol=1e-5, rtol=1e-5)


def test_reading_the_new_statistics_in_the_same_call_is_refused():
    from exporter.errors import ExportError
    from exporter.export import export

    class ReadsThem(TrainingBatchNorms):
        def forward(self, x):
            y = F.batch_norm(x, self.mean, self.var, training=True)
            return y * self.mean[:, None]

    with pytest.raises(ExportError, match="updated running statistics are read in the same "
                                          "call.*read them in the next call"):
        export(ReadsThem(), (_input(),))
