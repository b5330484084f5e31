"""End to end, quantized: models with `quantize:` in their manifests built into one host
runtime (scons run=1: each self-check compares with the quantized model in eager), then the
runner against that model on inputs the test makes, with every CPU level's kernels.

The demo GPT with its KV cache in 8da4w (manifests/models/nanogpt_8da4w.yaml: self-check and
greedy generation against the quantized model in eager), and every scheme on
host-xnnpack and on linux-aarch64 under qemu, build too with TAILOR_QUANT_FULL=1 (slower:
one runtime each).
"""

import os
import shutil
import subprocess

import numpy as np
import pytest
import torch

from codegen import build_layout
from tests.conftest import REPO, passed_check, run_scons
from tests.ops.harness import cpu_levels

BUILD = build_layout.tree("test-e2e-quantized")
SCHEMES = ("int8-weight", "8da8w", "8da4w")
FULL = os.environ.get("TAILOR_QUANT_FULL") == "1"
MODEL = """description: Linear(64, 96) - ReLU - Linear(96, 8), {scheme}
factory: tl_quantized_model:make
dynamic_dims:
  - {{input: 0, dim: 0, name: batch, min: 1, max: 8}}
quantize: {scheme}
tolerance: {{atol: 1.0e-4, rtol: 1.0e-4}}
"""
FACTORY = """import torch


def make():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 96), torch.nn.ReLU(),
                                torch.nn.Linear(96, 8))
    return model.eval(), (torch.randn(4, 64),)
"""


def _name(scheme: str) -> str:
    return "q_" + scheme.replace("-", "_")


@pytest.fixture(scope="module")
def manifests(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quantized")
    (folder / "tl_quantized_model.py").write_text(FACTORY)
    for scheme in SCHEMES:
        (folder / f"{_name(scheme)}.yaml").write_text(MODEL.format(scheme=scheme))
    return folder


def _models(manifests) -> str:
    return "model=" + ",".join(str(manifests / f"{_name(s)}.yaml") for s in SCHEMES)


@pytest.fixture(scope="module")
def built(manifests):
    run_scons(_models(manifests), "run=1", "build_dir=" + BUILD)
    return os.path.join(REPO, BUILD, "host", "+".join(_name(s) for s in SCHEMES))


@pytest.mark.parametrize("scheme", SCHEMES)
def test_self_check_against_the_quantized_model_passes(built, scheme):
    passed_check(built, _name(scheme))


def test_the_runtime_holds_the_quantized_kernels(built):
    with open(os.path.join(built, "kernel_plan.yaml")) as f:
        plan = f.read()
    assert "tailor::quantized::native::linear_out" in plan
    assert "aten::addmm.out" not in plan  # every Linear is quantized in every scheme


@pytest.mark.parametrize("level", cpu_levels())
@pytest.mark.parametrize("scheme", SCHEMES)
def test_runner_matches_the_quantized_model(built, manifests, tmp_path, monkeypatch, scheme,
                                            level):
    from exporter.quantize.apply import quantize_for_export
    monkeypatch.syspath_prepend(str(manifests))
    from tl_quantized_model import make
    model, inputs = make()
    quantized, report = quantize_for_export(model, inputs, scheme)
    assert report.linears == ("0", "2")
    x = torch.randn(7, 64, generator=torch.Generator().manual_seed(3))
    np.save(tmp_path / "x.npy", x.numpy())
    name = _name(scheme)
    proc = subprocess.run([os.path.join(built, "bin", "runner"),
                           os.path.join(built, f"{name}.pte"), "--input", str(tmp_path / "x.npy"),
                           "--output", str(tmp_path / "y.npy"), "--verbose"],
                          capture_output=True, text=True, env=dict(os.environ, TL_CPU_LEVEL=level))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with torch.no_grad():
        want = quantized(x).numpy()
        fp32 = model(x).numpy()
    got = np.load(tmp_path / "y.npy")
    np.testing.assert_allclose(got, want, atol=1e-4, rtol=1e-4)
    # ... and stays near the float model (outputs are about 0.3): 8 bits within 1%, 4 bits
    # (with random, untrained weights) within 5% of the output range.
    assert np.abs(got - fp32).max() < (0.1 if scheme == "8da4w" else 0.02)


def test_quantized_programs_are_smaller(built):
    sizes = {s: os.path.getsize(os.path.join(built, f"{_name(s)}.pte")) for s in SCHEMES}
    assert sizes["8da4w"] < sizes["8da8w"] == sizes["int8-weight"]


@pytest.mark.skipif(not FULL, reason="set TAILOR_QUANT_FULL=1 (builds the GPT in 8da4w)")
def test_the_demo_gpt_in_8da4w_generates_as_the_quantized_model_with_its_cache():
    """nanogpt_8da4w is the GPT with its KV cache: the self-check passes, and the app's
    greedy tokens (one prefill, then one decode call per token) are eager's."""
    from examples.nanogpt.trained import make_nanogpt_cached
    from exporter.quantize.apply import quantize_model
    from exporter.quantize.scheme import parse_quantize
    from tests.llm.app import LlmApp, split_ids
    run_scons("model=nanogpt_8da4w", "run=1", "build_dir=" + BUILD)
    out = os.path.join(REPO, BUILD, "host", "nanogpt_8da4w")
    passed_check(out, "nanogpt_8da4w")
    app = LlmApp(os.path.join(out, "bin", "llm"), os.path.join(out, "nanogpt_8da4w.pte"))
    prompt = [int(t) for t in app.run("--encode", "And God said", program=False).stdout.split()]
    proc = app.run("--prompt", "And God said", "--greedy", "--print-ids", "--max-tokens", "30")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "KV cache" in proc.stderr.decode()
    generated = split_ids(proc.stdout.decode())[1]
    model, _ = make_nanogpt_cached()
    quantized, _ = quantize_model(model, parse_quantize("8da4w"))
    want = []
    with torch.no_grad():
        logits = quantized(torch.tensor([prompt]), torch.arange(len(prompt)))
        while len(want) < 30:
            want.append(int(logits[0, -1].argmax()))
            if want[-1] == 511:
                break
            position = len(prompt) + len(want) - 1
            logits = quantized(torch.tensor([[want[-1]]]), torch.tensor([position]))
    assert generated == want and len(set(generated)) > 5


def _missing(tool: str) -> bool:
    return shutil.which(tool) is None


@pytest.mark.skipif(not FULL, reason="set TAILOR_QUANT_FULL=1 (one runtime per target)")
@pytest.mark.parametrize("target, needs", [("host-xnnpack", "/usr/include/xnnpack.h"),
                                           ("linux-aarch64", "qemu-aarch64")])
def test_every_scheme_passes_its_self_check_on(manifests, target, needs):
    if not (os.path.exists(needs) if needs.startswith("/") else not _missing(needs)):
        pytest.skip(f"{needs} is not installed (setup.sh installs it)")
    run_scons(_models(manifests), f"target={target}", "run=1", "build_dir=" + BUILD)
    out = os.path.join(REPO, BUILD, target, "+".join(_name(s) for s in SCHEMES))
    for scheme in SCHEMES:
        passed_check(out, _name(scheme))


class _ScalesApart(torch.nn.Module):
    """An 8da4w linear as programs stored it before the scales moved into the weight
    blocks: weight [ceil(N/8), K * 4] and weight_scales [K / 32, N] apart."""

    def __init__(self):
        super().__init__()
        self.register_buffer("weight", torch.randint(0, 256, (12, 64 * 4), dtype=torch.uint8))
        self.register_buffer("weight_scales", torch.rand(2, 96))

    def forward(self, x):
        return torch.ops.tailor_quant.linear(x, self.weight, self.weight_scales, None, 4, True)


def test_a_program_with_int4_scales_apart_is_refused_with_re_export_named(built, tmp_path):
    from exporter.export import export
    path = tmp_path / "scales_apart.pte"
    export(_ScalesApart(), (torch.randn(4, 64),)).save(str(path))
    proc = subprocess.run([os.path.join(built, "bin", "runner"), str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ("tailor_quant::linear.out: 4-bit weight_scales [2, 96] are stored apart from the "
            "weights") in proc.stderr, proc.stderr
    assert "re-export the program" in proc.stderr, proc.stderr
