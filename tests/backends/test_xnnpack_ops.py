"""Every op the XNNPACK partitioner claims, run by XNNPACK and compared with torch.

Each case is a one-op module (plus a linear around ops whose operands must be computed)
exported with XnnpackPartitioner; the test asserts the whole program became one
DelegateCall (so XNNPACK, not a kernel, computes it), builds all cases into one
host-xnnpack runtime (scons programs=...), runs each with the runner and compares.
"""

import glob
import os
import subprocess

import numpy as np
import pytest
import torch

from backends.xnnpack import XnnpackPartitioner
from exporter.export import export
from tests.conftest import REPO, run_scons

BUILD = "build/test-backends"
F = torch.nn.functional

CASES = {
    "linear": (torch.nn.Linear(6, 5), [(3, 6)]),
    "linear_3d": (torch.nn.Linear(6, 5), [(2, 3, 6)]),
    "mm_constant": (lambda x: x @ CONST_W, [(4, 6)]),
    "add_broadcast": (lambda a, b: a + b, [(2, 3, 4), (3, 1)]),
    "sub": (lambda a, b: a - b, [(3, 4), (3, 4)]),
    "mul": (lambda a, b: a * b, [(3, 4), (4,)]),
    "div": (lambda a, b: a / b, [(3, 4), (3, 4)]),
    "maximum": (torch.maximum, [(3, 4), (3, 4)]),
    "minimum": (torch.minimum, [(3, 4), (1, 4)]),
    "add_scalar": (lambda a: a + 2.5, [(3, 4)]),
    "mul_scalar": (lambda a: a * -0.5, [(3, 4)]),
    "relu": (torch.relu, [(3, 4)]),
    "clamp": (lambda a: torch.clamp(a, -0.3, 0.4), [(3, 4)]),
    "hardtanh": (F.hardtanh, [(3, 4)]),
    "softmax": (lambda a: torch.softmax(a, dim=-1), [(2, 3, 5)]),
    "sigmoid": (torch.sigmoid, [(3, 4)]),
    "hardswish": (F.hardswish, [(3, 4)]),
    "neg": (torch.neg, [(3, 4)]),
    "abs": (torch.abs, [(3, 4)]),
    "sqrt": (lambda a: torch.sqrt(a.abs()), [(3, 4)]),
    "view": (lambda a: torch.relu(a.view(4, 3)), [(3, 4)]),
}
CONST_W = torch.randn(6, 7, generator=torch.Generator().manual_seed(3))


class Wrap(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


@pytest.fixture(scope="module")
def built():
    if not os.path.exists("/usr/include/xnnpack.h"):
        pytest.skip("XNNPACK is not installed; install it: apt-get install -y libxnnpack-dev "
                    "libpthreadpool-dev libcpuinfo-dev")
    folder = os.path.join(REPO, BUILD, "xnnpack-ops")
    os.makedirs(folder, exist_ok=True)
    generator = torch.Generator().manual_seed(0)
    cases = {}
    for name, (fn, shapes) in CASES.items():
        module = fn if isinstance(fn, torch.nn.Module) else Wrap(fn)
        inputs = tuple(torch.randn(*s, generator=generator) for s in shapes)
        program = export(module, inputs, partitioner=XnnpackPartitioner())
        kinds = [i["instr_type"] for i in program.method["instructions"]]
        with torch.no_grad():
            expected = module.eval()(*inputs).numpy()
        pte = os.path.join(folder, name + ".pte")
        program.save(pte)
        paths = []
        for i, x in enumerate(inputs):
            paths.append(os.path.join(folder, f"{name}_in{i}.npy"))
            np.save(paths[-1], x.numpy())
        cases[name] = (kinds, pte, paths, expected)
    programs = ",".join(os.path.relpath(c[1], REPO) for c in cases.values())
    run_scons("target=host-xnnpack", "programs=" + programs, "build_dir=" + BUILD)
    # The variant directory names the first program and counts the rest.
    found = glob.glob(os.path.join(REPO, BUILD, "host-xnnpack",
                                   "linear+%d-more*" % (len(CASES) - 1), "bin", "runner"))
    assert len(found) == 1, found
    return found[0], cases


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_runs_on_xnnpack(built, tmp_path, name):
    runner, cases = built
    kinds, pte, inputs, expected = cases[name]
    assert kinds == ["DelegateCall"], f"{name} is not one delegate: {kinds}"
    args = [runner, pte, "--output", str(tmp_path / "y.npy")]
    for path in inputs:
        args += ["--input", path]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), expected, atol=1e-5, rtol=1e-5)
