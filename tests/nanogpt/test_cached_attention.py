"""nanogpt::cached_attention's kernel (examples/nanogpt/kernels/op_cached_attention.cpp) in a
built runtime against the operator's torch reference: decode steps (dot products over
the cache in place) and blocks of queries (the GEMM path) at positions in any order, a
head_dim that is no whole number of vectors, a cache longer than one transposed chunk of
keys, on one thread and with the heads over two; positions outside the cache are an
error, not a crash."""

import os
import subprocess

import numpy as np
import pytest
import torch

from examples.nanogpt.attention_op import reference
from tests.conftest import REPO, run_scons
from tests.nanogpt.attention_probe import POSITIONS, probe_inputs

BUILD = "build/test-cached-attention"
MANIFEST = f"""description: nanogpt::cached_attention alone, caches as inputs
factory: tests.nanogpt.attention_probe:make_attention_probe
dynamic_dims:
  - {{input: 0, dim: 1, name: T, min: 1, max: {POSITIONS}}}
  - {{input: 3, dim: 0, name: T, min: 1, max: {POSITIONS}}}
kernel_libraries: [examples/nanogpt/kernels/nanogpt_kernels.yaml]
tolerance: {{atol: 1.0e-5, rtol: 1.0e-4}}
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    manifest = tmp_path_factory.mktemp("probe") / "attention_probe.yaml"
    manifest.write_text(MANIFEST)
    proc = run_scons(f"model={manifest}", "run=1", "build_dir=" + BUILD)
    assert "check passed" in proc.stdout or "is up to date" in proc.stdout, proc.stdout
    out = os.path.join(REPO, BUILD, "host", "attention_probe")
    return os.path.join(out, "bin", "runner"), os.path.join(out, "attention_probe.pte")


def run_probe(probe, tmp_path, inputs, threads: int = 1) -> subprocess.CompletedProcess:
    command = list(probe) + ["--threads", str(threads)]
    for i, value in enumerate(inputs):
        np.save(tmp_path / f"in{i}.npy", value.numpy())
        command += ["--input", str(tmp_path / f"in{i}.npy")]
    command += ["--output", str(tmp_path / "out.npy")]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


RNG = np.random.default_rng(5)
CASES = {
    "decode at the last position": [POSITIONS - 1],
    "decode at the first position": [0],
    "a few queries in any order": [5, 700, 2],
    "a prompt of 100": list(range(100)),
    "the cache's second half": list(range(POSITIONS // 2, POSITIONS)),
    "40 positions in any order": [int(p) for p in RNG.permutation(POSITIONS)[:40]],
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("positions", CASES.values(), ids=CASES.keys())
def test_the_kernel_matches_the_reference(probe, tmp_path, positions, threads):
    inputs = probe_inputs(positions, seed=len(positions))
    proc = run_probe(probe, tmp_path, inputs, threads)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    want = reference(*inputs).numpy()
    got = np.load(tmp_path / "out.npy")
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("bad", [POSITIONS, -1])
def test_a_position_outside_the_cache_is_an_error(probe, tmp_path, bad):
    proc = run_probe(probe, tmp_path, probe_inputs([3, bad]))
    assert proc.returncode > 0, proc.stdout + proc.stderr   # an error, not a signal
    assert f"input_pos[1] = {bad} is outside the cache's {POSITIONS} positions" in proc.stderr
