"""Runs a program with the runner and compares its outputs with torch's: within a
tolerance, exactly, or (drawn values) by their statistics."""

import os
import subprocess

import numpy as np

from tests.conftest import REPO
from tests.ops.harness.build import LibraryBuild
from tests.ops.harness.export import Exported
from tests.ops.harness.libraries import CROSS_STACK, SANITIZER_ENV, STACK
from tests.ops.harness.program import _torch_dtype

# Floating dtypes: (atol, rtol) unless the case says otherwise. Half and BFloat16 allow
# one rounding step of difference (torch may round an intermediate the kernel keeps).
TOLERANCE = {"Float": (1e-5, 1e-5), "Double": (1e-10, 1e-10), "Half": (1e-3, 2e-3),
             "BFloat16": (1e-2, 1.6e-2)}
_NUMPY_FLOATS = {np.float16: "Half", np.float32: "Float", np.float64: "Double"}


def run_outputs(build: LibraryBuild, exported: Exported, tmp_dir: str,
                threads: int = 1) -> list[str]:
    """Runs the program on its inputs (on `threads` threads) into .npy files in `tmp_dir`;
    asserts the run succeeded and returns the output paths."""
    outputs = [os.path.join(tmp_dir, f"output_{threads}_{i}.npy")
               for i in range(len(exported.expected))]
    command = [*build.emulator, build.runner, os.path.join(REPO, exported.pte)]
    if threads > 1:
        command += ["--threads", str(threads)]
    if STACK:
        command += ["--stack", CROSS_STACK if build.emulator else STACK]
    for path in exported.inputs:
        command += ["--input", path]
    for path in outputs:
        command += ["--output", path]
    env = dict(os.environ, **SANITIZER_ENV)
    if build.cpu_level:
        env["TL_CPU_LEVEL"] = build.cpu_level
    proc = subprocess.run(command, capture_output=True, text=True, env=env)
    where = f"TL_CPU_LEVEL={build.cpu_level} " if build.cpu_level else ""
    assert proc.returncode == 0, (f"{where}{' '.join(command)} exited {proc.returncode}:\n"
                                  f"{proc.stdout}{proc.stderr}")
    return outputs


def run_and_compare(build: LibraryBuild, exported: Exported, tmp_dir: str,
                    threads: int = 1) -> None:
    """Runs the program on its inputs (on `threads` threads); asserts each output matches
    torch's."""
    outputs = run_outputs(build, exported, tmp_dir, threads)
    for i, (got_path, want_path) in enumerate(zip(outputs, exported.expected)):
        got, want = np.load(got_path), np.load(want_path)
        where = f"{exported.case.id} ({exported.dtype}) output {i}"
        assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, torch gives {want.dtype}"
        assert got.shape == want.shape, f"{where}: shape {got.shape}, torch gives {want.shape}"
        if exported.case.check != "eager":
            continue  # drawn: check_drawn below
        if np.issubdtype(want.dtype, np.floating):
            # The looser of the case dtype's and the output dtype's tolerance (Int / Int
            # gives Float; a BFloat16 output arrives widened to float32).
            atol, rtol = max(TOLERANCE.get(exported.dtype, (0.0, 0.0)),
                             TOLERANCE[_NUMPY_FLOATS[want.dtype.type]])
            atol = exported.case.atol if exported.case.atol is not None else atol
            rtol = exported.case.rtol if exported.case.rtol is not None else rtol
            np.testing.assert_allclose(got, want, atol=atol, rtol=rtol, err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)
    if exported.case.check != "eager":
        check_drawn(exported, [np.load(p) for p in outputs])


# Bounds on a draw's statistics, in standard errors: a sound generator (seeded, so the
# test is deterministic) stays well inside; a biased or stuck one does not.
SIGMAS = 6.0
MOMENTS_FROM = 1000  # elements from which an output's moments are checked


def _within(where: str, what: str, value: float, mean: float, spread: float) -> None:
    assert abs(value - mean) <= SIGMAS * spread, (
        f"{where}: {what} {value:.5g}, a draw gives {mean:.5g} +- {SIGMAS * spread:.3g}")


def check_drawn(exported: Exported, outputs: list) -> None:
    """The outputs of a case whose values Tailor draws (OpCase.check), whose dtype and
    shape run_and_compare checked against eager's: "shape" nothing more; "uniform" values
    in [0, 1) with the mean, variance and 10-bin histogram of U(0, 1); "normal" finite
    values with the mean and variance of N(0, 1); "dropout" (out, mask) pairs: out equals
    torch's input * mask * (1 / (1 - p)) exactly, and the fraction kept is 1 - p. Two
    calls' draws must differ (each call has its own stream)."""
    import torch
    case, check = exported.case, exported.case.check
    where = f"{case.id} ({exported.dtype})"
    if check == "shape":
        return
    if check == "dropout":
        p = case.args[0]
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
        for k, (out, mask) in enumerate(zip(outputs[0::2], outputs[1::2])):
            assert mask.dtype == np.bool_, f"{where} call {k}: mask is {mask.dtype}"
            x = torch.from_numpy(np.load(exported.inputs[k])).to(_torch_dtype(exported.dtype))
            want = x.mul(torch.from_numpy(mask)).mul_(scale)
            want = want.float() if want.dtype == torch.bfloat16 else want  # as .npy holds it
            np.testing.assert_array_equal(out, want.numpy(),
                                          err_msg=f"{where} call {k}: not input * mask * scale")
            n = mask.size
            if n >= MOMENTS_FROM:
                _within(f"{where} call {k}", "kept", float(mask.sum()), n * (1 - p),
                        (n * p * (1 - p)) ** 0.5 + 1)
        return
    draws = [o.astype(np.float64).ravel() for o in outputs]
    for k, v in enumerate(draws):
        at = f"{where} call {k}"
        assert np.isfinite(v).all(), f"{at}: a value is not finite"
        if check == "uniform":
            assert ((v >= 0) & (v < 1)).all(), f"{at}: a value outside [0, 1): {v.min()}, {v.max()}"
        if v.size < MOMENTS_FROM:
            continue
        n = v.size
        if check == "uniform":
            _within(at, "mean", v.mean(), 0.5, (1 / 12 / n) ** 0.5)
            _within(at, "variance", v.var(), 1 / 12, ((1 / 80 - 1 / 144) / n) ** 0.5)
            counts = np.histogram(v, bins=10, range=(0, 1))[0]
            for b, c in enumerate(counts):
                _within(at, f"count in [{b / 10}, {(b + 1) / 10})", c, n / 10, (n * 0.09) ** 0.5)
        else:
            _within(at, "mean", v.mean(), 0.0, (1 / n) ** 0.5)
            _within(at, "variance", v.var(), 1.0, (2 / n) ** 0.5)
    big = [v for v in draws if v.size >= 2]
    for a, b in zip(big, big[1:]):
        n = min(a.size, b.size)
        assert not np.array_equal(a[:n], b[:n]), f"{where}: two calls drew the same numbers"
