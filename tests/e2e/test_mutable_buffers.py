"""Buffers a module writes in place export, persist across execute() calls and restart
from their initial values at load: the runner's --repeat N output is eager's N-th call,
on host and host-xnnpack (where the buffers stay outside the delegate)."""

import os
import subprocess

import numpy as np
import pytest
import torch
from torch import nn

from codegen import build_layout
from program import model
from tests.conftest import REPO, run_scons
from tests.ops import harness

BUILD = build_layout.tree("test-e2e-state")


class Stateful(nn.Module):
    """A KV-cache write (index_put through slice assignment), index_copy_, a counter and
    a linear layer a delegate can take, reading the state after the writes."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.proj = nn.Linear(4, 4)
        self.register_buffer("k_cache", torch.randn(1, 2, 8, 4))
        self.register_buffer("v_cache", torch.zeros(1, 2, 8, 4))
        self.register_buffer("count", torch.zeros(1, dtype=torch.long))

    def forward(self, k: torch.Tensor, pos: torch.Tensor):
        self.k_cache[:, :, pos] = self.proj(k)
        self.v_cache.index_copy_(2, pos, k * 2)
        self.count += 1
        mixed = self.proj(self.k_cache + self.v_cache)
        return mixed.sum(2) * self.count, self.count + 0


def _inputs(call: int):
    k = torch.randn(1, 2, 3, 4, generator=torch.Generator().manual_seed(call))
    return k, torch.tensor([call % 8, (call + 3) % 8, (call + 5) % 8])


def _targets() -> list:
    missing = harness.unavailable(harness.XNNPACK)
    return ["host", pytest.param("host-xnnpack", marks=pytest.mark.skipif(
        bool(missing), reason=missing or ""))]


_built = {}


def _build(target: str) -> tuple[str, str]:
    if target not in _built:
        from exporter.export import export
        folder = os.path.join(REPO, BUILD, "programs", target)
        os.makedirs(folder, exist_ok=True)
        pte = os.path.join(folder, "stateful.pte")
        T = torch.export.Dim("T", max=8)
        export(Stateful(), _inputs(0), dynamic_shapes=({2: T}, {0: T}), target=target).save(pte)
        run_scons("target=" + target, "programs=" + os.path.relpath(pte, REPO),
                  "build_dir=" + BUILD)
        _built[target] = (os.path.join(REPO, BUILD, target, "stateful", "bin", "runner"), pte)
    return _built[target]


def _run(target: str, tmp_path, repeat: int, *args: str) -> list:
    runner, pte = _build(target)
    paths = []
    for i, x in enumerate(_inputs(0)):
        paths.append(str(tmp_path / f"input_{i}.npy"))
        np.save(paths[-1], x.numpy())
    outs = [str(tmp_path / f"output_{i}.npy") for i in range(2)]
    proc = subprocess.run([runner, pte, "--input", *paths, "--output", *outs,
                           "--repeat", str(repeat), *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [np.load(p) for p in outs]


def _eager(repeat: int) -> list:
    module = Stateful().eval()
    with torch.no_grad():
        for _ in range(repeat):
            outs = module(*_inputs(0))
    return [o.numpy() for o in outs]


@pytest.mark.parametrize("target", _targets())
def test_repeat_gives_the_nth_call_of_eager(target, tmp_path):
    for repeat in (3, 1):       # loading again starts from the initial values
        got = _run(target, tmp_path, repeat)
        want = _eager(repeat)
        assert int(got[1][0]) == repeat
        np.testing.assert_allclose(got[0], want[0], atol=1e-5, rtol=1e-5)


def test_warmup_runs_are_calls_before_the_timed_ones(tmp_path):
    """--warmup N runs the method N times untimed: the outputs are eager's (N + repeat)-th
    call, and the timing line counts the --repeat runs only."""
    got = _run("host", tmp_path, 2, "--warmup", "3")
    assert int(got[1][0]) == 5
    np.testing.assert_allclose(got[0], _eager(5)[0], atol=1e-5, rtol=1e-5)
    runner, pte = _build("host")
    proc = subprocess.run([runner, pte, "--warmup", "-1"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--warmup: '-1' is not a count from 0 to 100000" in proc.stderr


@pytest.mark.parametrize("target", _targets())
def test_reset_state_restores_the_initial_values(target, tmp_path):
    got = _run(target, tmp_path, 3, "--reset-state")    # Method::reset_state() each run
    assert int(got[1][0]) == 1
    np.testing.assert_allclose(got[0], _eager(1)[0], atol=1e-5, rtol=1e-5)


def test_the_program_stores_initial_values_and_writes_the_cache_in_place():
    from exporter.export import export
    T = torch.export.Dim("T", max=8)
    program = export(Stateful(), _inputs(0), dynamic_shapes=({2: T}, {0: T}))
    buffers = [v for v in program.method.values
               if isinstance(v, model.Tensor) and v.initial is not None]
    assert len(buffers) == 3 and all(b.allocation is not None for b in buffers)
    ops = program.operators
    # index_put writes the caches in place; only the counter is copied back.
    assert ops.count("aten::clone.out") == 1 and "aten::index_put.out" in ops


def test_a_model_writing_its_input_gets_one_clear_error():
    from exporter.errors import ExportError
    from exporter.export import export

    class WritesInput(nn.Module):
        def forward(self, x):
            x.add_(1)
            return x * 2

    with pytest.raises(ExportError, match="register_buffer"):
        export(WritesInput(), (torch.randn(3),))
