"""End to end on the host for the GPT models (manifests/models/gpt_tiny.yaml, exact GELU,
and gpt_tiny_tanh.yaml, tanh GELU): both built into one runtime with run=1 (the self-check
at the example length), then the runtime's shared library (lib=shared, tailor.Runtime) at
several sequence lengths on token ids the test makes, against torch eager; a sequence
longer than block_size is rejected."""

import os
import subprocess

import numpy as np
import pytest
import torch

import tailor
from codegen import build_layout
from tests.conftest import REPO, passed_check, run_scons

BUILD = build_layout.tree("test-e2e-gpt")
OUT = os.path.join(REPO, build_layout.output_dir(["gpt_tiny", "gpt_tiny_tanh"], build_dir=BUILD,
                                                 lib="shared"))
MODELS = {"gpt_tiny": "none", "gpt_tiny_tanh": "tanh"}   # model -> GELU approximation
VOCAB, BLOCK = 256, 32


@pytest.fixture(scope="module")
def built():
    run_scons("model=gpt_tiny,gpt_tiny_tanh", "run=1", "lib=shared", "build_dir=" + BUILD)
    return OUT


@pytest.fixture(scope="module")
def programs(built):
    runtime = tailor.Runtime(os.path.join(built, "lib", "libtailor.so"))
    return {model: runtime.load(os.path.join(built, f"{model}.pte")) for model in MODELS}


def _torch_model(approximate: str):
    from examples.nanogpt.model import make_gpt
    model, _ = make_gpt(n_layer=2, n_head=4, n_embd=64, vocab_size=VOCAB, block_size=BLOCK,
                        gelu_approximate=approximate)
    return model


def _tokens(length: int) -> torch.Tensor:
    return torch.randint(0, VOCAB, (1, length), generator=torch.Generator().manual_seed(length))


@pytest.mark.parametrize("model", MODELS)
def test_self_check_passed(built, model):
    passed_check(built, model)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("length", [1, 7, 32])
def test_runtime_matches_torch(programs, model, length):
    idx = _tokens(length)
    [got] = programs[model].run(idx.numpy())
    with torch.no_grad():
        want = _torch_model(MODELS[model])(idx).numpy()
    assert got.shape == want.shape == (1, length, VOCAB)
    np.testing.assert_allclose(got, want, atol=1e-4, rtol=1e-4)


def test_tanh_variant_computes_tanh_gelu(programs):
    # Same weights, different GELU: the two programs must disagree where torch does.
    idx = _tokens(16)
    outputs = {model: programs[model].run(idx.numpy())[0] for model in MODELS}
    with torch.no_grad():
        want_gap = np.abs(_torch_model("none")(idx).numpy()
                          - _torch_model("tanh")(idx).numpy()).max()
    got_gap = np.abs(outputs["gpt_tiny"] - outputs["gpt_tiny_tanh"]).max()
    assert want_gap > 1e-6
    assert got_gap == pytest.approx(want_gap, rel=0.1)


@pytest.mark.parametrize("model", MODELS)
def test_sequence_beyond_block_size_is_rejected(programs, model):
    with pytest.raises(tailor.TailorError,
                       match=r"input 0: shape \[1, 33\] does not fit the upper bounds \[1, 32\]"):
        programs[model].run(_tokens(BLOCK + 1).numpy())


def test_runner_without_inputs_zeroes_them_on_every_run(built, tmp_path):
    """No --input: each of the --repeat runs reads zeroed token ids, not what the run
    before left in the input's planned bytes (shared with the activations)."""
    runner = os.path.join(built, "bin", "runner")
    program = os.path.join(built, "gpt_tiny.pte")
    outputs = {}
    for name, runs in {"once": [], "again": ["--warmup", "1", "--repeat", "3"]}.items():
        out = tmp_path / f"{name}.npy"
        proc = subprocess.run([runner, program, *runs, "--output", str(out)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        outputs[name] = np.load(out)
    np.testing.assert_array_equal(outputs["again"], outputs["once"])
    with torch.no_grad():  # zeros at the planned (upper-bound) length
        want = _torch_model("none")(torch.zeros(1, BLOCK, dtype=torch.long)).numpy()
    np.testing.assert_allclose(outputs["once"], want, atol=1e-4, rtol=1e-4)
