"""End to end under ASan + UBSan (`scons sanitize=address`), for CI (.ci/run): the MLP
and the tiny GPT in one runtime, built with run=1 (each runner's self-check against torch
eager runs under the sanitizers, so a report fails the build), then each program again
on 2 threads (the thread pool and the kernels' per-thread scratch slices) at a length of
its own.

Opt-in, like the sanitized op harness: it runs when TAILOR_SANITIZE=address and is
skipped otherwise (a sanitized build of the runtime takes a few minutes; the default run
has the same models unsanitized in test_mlp_host.py and test_gpt_tiny_host.py)."""

import os
import subprocess

import numpy as np
import pytest
import torch

from codegen import build_layout
from tests.conftest import REPO, passed_check, run_scons
from tests.ops import harness

BUILD = build_layout.tree("test-e2e-asan")
MODELS = ("mlp", "gpt_tiny")
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


@pytest.fixture(scope="module")
def built():
    if os.environ.get("TAILOR_SANITIZE") != "address":
        pytest.skip("sanitized end-to-end builds run with TAILOR_SANITIZE=address (.ci/run)")
    proc = run_scons("model=" + ",".join(MODELS), "run=1", "sanitize=address",
                     "build_dir=" + BUILD)
    return proc, os.path.join(REPO, build_layout.output_dir(MODELS, build_dir=BUILD,
                                                            sanitize="address"))


def _inputs(model: str):
    """An input of the model's own, not the export's example: (tensor, torch module)."""
    if model == "mlp":
        from examples.mlp.model import make_mlp
        module, _ = make_mlp()
        return torch.randn(5, 16, generator=torch.Generator().manual_seed(5)), module
    from examples.nanogpt.model import make_gpt_tiny
    module, _ = make_gpt_tiny()
    return torch.randint(0, 256, (1, 19), generator=torch.Generator().manual_seed(19)), module


@pytest.mark.parametrize("model", MODELS)
def test_self_check_passes_under_sanitizers(built, model):
    proc, out = built
    for marker in SANITIZER_MARKERS:
        assert marker not in proc.stdout + proc.stderr
    passed_check(out, model)


def test_the_runtime_has_no_kernels_above_this_cpus_level(built):
    # A sanitized build runs only here: no vector code for the CPU levels above this
    # machine's (runtime/kernel/cpu_level.h, kCpuLevelCeiling).
    _, out = built
    assert harness.vector_levels_in(build_layout.runner(out)) == harness.cpu_levels()[1:]


@pytest.mark.parametrize("model", MODELS)
def test_two_threads_match_torch_under_sanitizers(built, model, tmp_path):
    _, out = built
    x, module = _inputs(model)
    np.save(tmp_path / "x.npy", x.numpy())
    proc = subprocess.run([build_layout.runner(out), build_layout.program(out, model),
                           "--input", str(tmp_path / "x.npy"), "--output",
                           str(tmp_path / "y.npy"), "--threads", "2"],
                          capture_output=True, text=True)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    for marker in SANITIZER_MARKERS:
        assert marker not in report, report
    with torch.no_grad():
        want = module.eval()(x).numpy()
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), want, atol=1e-4, rtol=1e-4)
