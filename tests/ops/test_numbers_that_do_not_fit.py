"""Numbers that do not fit raise as torch eager does (issue 26, item 5): full, fill
(full_like), scalar_tensor and arange with a value out of range for an integer (or Float)
out dtype fail the kernel call with torch's "value cannot be converted to type int64_t
without overflow", and every value that fits gives torch's tensor (-255 into Byte wraps to
1, 2^63 into Long is INT64_MIN, 2.5 truncates).

Each (op, dtype) is one small program calling the kernel once; the runtime of the
portable kernels is built for all of them (scons programs=...), then every value is
written into the program's Scalar and run, against torch eager on the same value."""

import math
import os
import subprocess

import numpy as np
import pytest
import torch

from codegen import build_layout
from tests.conftest import REPO
from tests.ops import harness
from tests.runtime import programs as P

BUILD = build_layout.tree("test-numbers")
DTYPES = ("Byte", "Char", "Short", "Int", "Long", "Float", "Bool", "Half", "BFloat16")
INT_DTYPES = ("Byte", "Char", "Short", "Int", "Long")
# Integers at and past each type's edge, and floats past them, NaN and infinities.
VALUES = (300, -1, -255, -256, -129, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63), 1e30, 2.5,
          255.9, -0.5, 3e9, 2.0**63, -2147483648.9, 70000.0, 1e39, 3.4e38, math.inf, -math.inf,
          math.nan)
# (start, end, step): at most 8 elements (the out tensor's capacity).
RANGES = ((1e30, 2e30, 1e30), (0, 3e9, 1e9), (2**40, 2**40 + 2, 1), (250, 260, 5),
          (-300, 1, 200), (0.0, 4.0, 1e30), (2**62, 2**63 - 1, 2**61), (-1e19, 0, 5e18),
          (0, 5, 1), (math.nan, 1, 1), (0.5, 4.0, 1.5))
NP = {"Byte": np.uint8, "Char": np.int8, "Short": np.int16, "Int": np.int32,
      "Long": np.int64, "Float": np.float32, "Bool": np.bool_, "Half": np.float16,
      "BFloat16": np.float32}


def _scalar(value):
    if isinstance(value, bool):
        return P.scalar("Bool", value)
    return P.scalar("Int", value) if isinstance(value, int) else P.scalar("Double", value)


def _full(dtype, value):
    """full.out([2], value): values size item, size list, fill_value, out."""
    return P.method([P.scalar("Int", 2), {"val_type": "IntList", "val": {"items": [0]}},
                     _scalar(value), P.tensor((2,), dtype)],
                    [P.kernel_call(0, [1, 2, 3])], [("aten::full", "out")], [], [3], [64])


def _full_like(dtype, value):
    """full_like.out(x, value) (what x.fill_(value) exports to): x, fill_value, None, out."""
    return P.method([P.tensor((2,), dtype), _scalar(value), {}, P.tensor((2,), dtype, offset=64)],
                    [P.kernel_call(0, [0, 1, 2, 3])], [("aten::full_like", "out")], [0], [3],
                    [128])


def _scalar_tensor(dtype, value):
    return P.method([_scalar(value), P.tensor((), dtype)], [P.kernel_call(0, [0, 1])],
                    [("aten::scalar_tensor", "out")], [], [1], [64])


def _arange(dtype, start_end_step):
    values = [_scalar(v) for v in start_end_step]
    return P.method(values + [P.tensor((8,), dtype, dynamic=True)],
                    [P.kernel_call(0, [0, 1, 2, 3])], [("aten::arange", "start_out")], [], [3],
                    [64])


OPS = {"full": (_full, VALUES), "fill": (_full_like, VALUES),
       "scalar_tensor": (_scalar_tensor, VALUES), "arange": (_arange, RANGES)}


def _dtypes(op):
    return INT_DTYPES + ("Float",) if op == "arange" else DTYPES


def _eager(op, dtype, value):
    """torch's tensor, or its error message."""
    dt = harness._torch_dtype(dtype)
    try:
        if op == "full":
            return torch.full([2], value, dtype=dt)
        if op == "fill":
            return torch.zeros(2, dtype=dt).fill_(value)
        if op == "scalar_tensor":
            return torch.scalar_tensor(value, dtype=dt)
        return torch.arange(*value, dtype=dt)
    except RuntimeError as error:
        return str(error)


def _write(path, method):
    P.write(path, P.program(method))
    return os.path.relpath(path, REPO)


@pytest.fixture(scope="module")
def runner():
    """The portable runtime for every (op, dtype), from one program each."""
    folder = os.path.join(REPO, BUILD, "templates")
    os.makedirs(folder, exist_ok=True)
    ptes = [_write(os.path.join(folder, f"{op}_{dtype}.pte"), make(dtype, values[0]))
            for op, (make, values) in OPS.items() for dtype in _dtypes(op)]
    return harness.build_programs("portable", ptes, build_dir=BUILD)


def _params():
    return [pytest.param(op, dtype, id=f"{op}/{dtype}") for op in OPS for dtype in _dtypes(op)]


@pytest.mark.parametrize("op,dtype", _params())
def test_raises_as_torch_or_gives_its_tensor(runner, tmp_path, op, dtype):
    make, values = OPS[op]
    wrong = []
    for i, value in enumerate(values):
        pte = tmp_path / f"{i}.pte"
        P.write(pte, P.program(make(dtype, value)))
        command = [runner, str(pte), "--output", str(tmp_path / f"{i}.npy")]
        if op == "fill":
            np.save(tmp_path / "x.npy", np.zeros(2, NP[dtype]))
            command += ["--input", str(tmp_path / "x.npy")]
        r = subprocess.run(command, capture_output=True, text=True,
                           env=dict(os.environ, **harness.SANITIZER_ENV))
        want = _eager(op, dtype, value)
        if isinstance(want, str):
            told = ("cannot be converted" not in want
                    or f"{want} (" in r.stderr)  # ours adds the argument and its value
            if r.returncode != 1 or not told:
                wrong.append(f"{value!r}: torch raises {want!r}; the runner exited "
                             f"{r.returncode}: {r.stderr.strip()[-300:]}")
            continue
        if r.returncode != 0:
            wrong.append(f"{value!r}: torch gives {want.tolist()}; the runner failed: "
                         f"{r.stderr.strip()[-300:]}")
            continue
        got = np.load(tmp_path / f"{i}.npy")
        # Half and BFloat16 compared as float32 (numpy has no bfloat16; the runner widens it).
        sixteen = dtype in ("Half", "BFloat16")
        expected = want.float().numpy() if sixteen else want.numpy()
        got = got.astype(np.float32) if sixteen else got
        floating = np.issubdtype(expected.dtype, np.floating)
        if got.shape != expected.shape or not np.array_equal(got, expected, equal_nan=floating):
            wrong.append(f"{value!r}: torch gives {expected.tolist()}, the runner {got.tolist()}")
    assert not wrong, f"{op} into {dtype}:\n" + "\n".join(wrong)
