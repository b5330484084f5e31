"""Exact dtype selection: a runtime built for a Float-only add program carries Float add
and nothing else, so an Int add program fails on it with an error naming the op and the
dtype (never wrong results), and it is smaller than the select=all runtime."""

import os
import subprocess

import numpy as np
import pytest
import torch

from tests.conftest import REPO
from tests.ops import harness

BUILD = "build/test-ops-dtypes"


class Add(torch.nn.Module):
    def forward(self, a, b):
        return a + b


@pytest.fixture(scope="module")
def programs():
    """{"Float": (pte relative to the repo, [input .npy paths]), "Int": ...}"""
    from exporter.export import export

    made = {}
    directory = os.path.join(REPO, BUILD, "programs")
    os.makedirs(directory, exist_ok=True)
    for name, dtype in (("Float", torch.float32), ("Int", torch.int32)):
        inputs = [torch.arange(6, dtype=dtype).reshape(2, 3), torch.arange(3, dtype=dtype)]
        pte = os.path.join(directory, f"add_{name.lower()}.pte")
        export(Add(), tuple(inputs)).save(pte)
        paths = []
        for i, value in enumerate(inputs):
            paths.append(os.path.join(directory, f"add_{name.lower()}_input_{i}.npy"))
            np.save(paths[-1], value.numpy())
        made[name] = (os.path.relpath(pte, REPO), paths)
    return made


def _build(programs, select: str) -> str:
    pte = programs["Float"][0]
    harness.scons(f"programs={pte}", "libraries=portable,prim", f"select={select}",
                  "build_dir=" + BUILD)
    runner = harness.runner_path([pte], "portable", select, BUILD)
    assert os.path.exists(runner), runner
    return runner


@pytest.fixture(scope="module")
def float_runner(programs):
    return _build(programs, "used")


def _run(runner, program, inputs, tmp_path):
    out = str(tmp_path / "out.npy")
    command = [runner, os.path.join(REPO, program)]
    for path in inputs:
        command += ["--input", path]
    proc = subprocess.run(command + ["--output", out], capture_output=True, text=True)
    return proc, out


def test_float_program_runs_on_the_float_runtime(programs, float_runner, tmp_path):
    pte, inputs = programs["Float"]
    proc, out = _run(float_runner, pte, inputs, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    want = np.load(inputs[0]) + np.load(inputs[1])
    np.testing.assert_array_equal(np.load(out), want)


def test_int_program_fails_naming_the_op_and_the_dtype(programs, float_runner, tmp_path):
    pte, inputs = programs["Int"]
    proc, out = _run(float_runner, pte, inputs, tmp_path)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 1, log
    # Refused at load, before any run: the kernel table carries each kernel's dtypes.
    assert ("method 'forward': instruction 0: aten::add.out argument 0 has dtype Int, which "
            "this runtime did not select for it (selected: Float)") in log, log
    assert "cannot load method 'forward': NotSupported" in log, log
    assert not os.path.exists(out)


def test_float_only_runtime_is_smaller_than_select_all(programs, float_runner):
    all_runner = _build(programs, "all")

    def total_size(path):  # `size` prints text, data, bss, dec, ...; dec is their sum
        lines = subprocess.run(["size", path], capture_output=True, text=True,
                               check=True).stdout.splitlines()
        return int(lines[1].split()[3])

    assert total_size(float_runner) < total_size(all_runner)
