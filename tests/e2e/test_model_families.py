"""The common architectures build and match eager (examples/zoo/), on host and, where
XNNPACK is installed, host-xnnpack: torchvision's classifiers, transformers' GPT-2, Llama,
BERT, DistilBERT, ViT-style and Whisper encoders, timm ViT/DeiT, torch.nn's Transformer,
MultiheadAttention, LSTM and GRU, a 1-D keyword-spotting CNN, and (examples/zoo/
operator_models.py) a ConvNeXt-V2 GRN block, a spatial transformer and a Conv3d video model.

Per target, ONE runtime holds them all (host-xnnpack's in the slow tier, --slow): one
model of each family comes from its model manifest (manifests/models/, with run=1's
self-check), the others (the slow tier) are exported here with export(..., target=...) and
built in with programs=, then run by the runner on the example inputs and compared with
eager. The transformers models also run at a second sequence length (their manifests make
it dynamic)."""

import glob
import os
import subprocess

import numpy as np
import pytest
import torch

from codegen import build_layout
from tests.conftest import REPO, passed_check, run_scons
from tests.ops import harness

BUILD = build_layout.tree("test-e2e-families")
ATOL = RTOL = 1e-4
# One model of each family, from its manifest.
MANIFESTS = ("resnet18", "mobilenet_v2", "gpt2", "llama", "bert", "vit", "whisper_encoder",
             "kws_cnn", "nn_transformer", "lstm", "convnext_v2_grn", "spatial_transformer",
             "video_conv3d")
DYNAMIC = {"gpt2": 9, "llama": 5, "bert": 23}      # dynamic-length models: a second length
# The families' neighbours, exported here and built in with programs=.
CLASSIFIERS = ("mobilenet_v3_small", "efficientnet_b0", "regnet_x_400mf", "shufflenet_v2_x0_5",
               "squeezenet1_1", "densenet121", "convnext_tiny")
PROGRAMS = CLASSIFIERS + ("distilbert", "hf_vit", "deit", "multihead_attention", "gru")


def _programs() -> dict:
    """name -> factory of each of PROGRAMS."""
    from examples.zoo import timm_models, torch_nn_models, torchvision_models
    from examples.zoo import transformers_models as hf
    found = {name: (lambda name=name: torchvision_models.make_classifier(name))
             for name in CLASSIFIERS}
    found.update(distilbert=hf.make_distilbert, hf_vit=hf.make_vit,
                 deit=lambda: timm_models.make_timm("deit_tiny_patch16_224"),
                 multihead_attention=torch_nn_models.make_multihead_attention,
                 gru=lambda: torch_nn_models.make_recurrent("GRU"))
    return found


def _targets() -> list:
    """host, then host-xnnpack in the slow tier: the default run delegates to XNNPACK in
    tests/backends/ and the op harness, and one more runtime of 13 models took 2.5 minutes
    of it."""
    missing = harness.unavailable(harness.XNNPACK)
    return ["host", pytest.param("host-xnnpack", marks=[
        pytest.mark.slow, pytest.mark.skipif(bool(missing), reason=missing or "")])]


_built = {}


def _build(target: str, config) -> dict:
    """Exports the programs= models for `target` (with --slow: the slow tier's test is the
    one that reads them), builds everything into one runtime with run=1; returns
    {"runner", "out", "programs": name -> (pte, module, inputs)}."""
    if target in _built:
        return _built[target]
    from exporter.export import export
    folder = os.path.join(REPO, BUILD, "programs", target)
    os.makedirs(folder, exist_ok=True)
    programs = {}
    factories = _programs()
    for name in PROGRAMS if config.getoption("--slow") else ():
        make = factories[name]
        module, inputs = make()
        path = os.path.join(folder, f"{name}.pte")
        export(module, inputs, target=target).save(path)
        programs[name] = (path, module, inputs)
    listed = ["programs=" + ",".join(os.path.relpath(p, REPO) for p, _, _ in
                                     programs.values())] if programs else []
    proc = run_scons("target=" + target, "model=" + ",".join(MANIFESTS), "run=1", *listed,
                     "build_dir=" + BUILD)
    runners = glob.glob(os.path.join(REPO, BUILD, target, "resnet18+*", "bin", "runner"))
    runner = max(runners, key=os.path.getmtime)
    _built[target] = {"runner": runner, "out": os.path.dirname(os.path.dirname(runner)),
                      "programs": programs, "log": proc.stdout}
    return _built[target]


def _run(runner: str, pte: str, inputs, tmp_path) -> list:
    paths = []
    for i, x in enumerate(inputs):
        paths.append(str(tmp_path / f"input_{i}.npy"))
        np.save(paths[-1], x.numpy())
    out = str(tmp_path / "output_0.npy")
    proc = subprocess.run([runner, pte, "--input", *paths, "--output", out],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return np.load(out)


@pytest.mark.parametrize("target", _targets())
@pytest.mark.parametrize("model", MANIFESTS)
def test_family_from_its_manifest_passes_the_self_check(target, model, pytestconfig):
    built = _build(target, pytestconfig)
    report = passed_check(built["out"], model)
    assert "warning" not in report       # its outputs are not all near zero


@pytest.mark.parametrize("target", _targets())
@pytest.mark.parametrize("model", list(DYNAMIC))
def test_transformers_at_another_length(target, model, tmp_path, pytestconfig):
    from examples.zoo import transformers_models as hf
    built = _build(target, pytestconfig)
    module, (tokens,) = getattr(hf, f"make_{model}")(seq=DYNAMIC[model])
    got = _run(built["runner"], os.path.join(built["out"], f"{model}.pte"), (tokens,), tmp_path)
    with torch.no_grad():
        want = module(tokens).numpy()
    np.testing.assert_allclose(got, want, atol=ATOL, rtol=RTOL)


@pytest.mark.slow  # neighbours of the manifests' families
@pytest.mark.parametrize("target", _targets())
@pytest.mark.parametrize("model", PROGRAMS)
def test_family_from_programs_matches_eager(target, model, tmp_path, pytestconfig):
    built = _build(target, pytestconfig)
    pte, module, inputs = built["programs"][model]
    got = _run(built["runner"], pte, inputs, tmp_path)
    with torch.no_grad():
        want = module(*inputs)
    assert np.abs(want.numpy()).max() > 10 * ATOL       # a check of near-zeros proves nothing
    np.testing.assert_allclose(got, want.numpy(), atol=ATOL, rtol=RTOL)
