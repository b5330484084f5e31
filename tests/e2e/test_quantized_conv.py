"""End to end, a CNN exported with `quantize: 8da8w`: its 1x1 convolutions and, with
`convolutions: all`, its 3x3 ones (a strided padded one too) become tailor_quant::conv2d
(exporter/quantize/modules.py, QuantizedConv2d: int8 weights per output channel, each
image quantized to int8 at run time); its depthwise one stays float. One host runtime
(scons run=1: the self-check compares with the quantized model in eager), then the runner
against that model at every CPU level."""

import os
import subprocess

import numpy as np
import pytest
import torch

from codegen import build_layout
from tests.conftest import REPO, passed_check, run_scons
from tests.ops.harness import cpu_levels

BUILD = build_layout.tree("test-e2e-quantized-conv")
NAME = "q_cnn_8da8w"
MODEL = """description: 3x3, depthwise, 1x1 and strided 3x3 convolutions, quantized 8da8w
factory: tl_quantized_cnn:make
dynamic_dims:
  - {input: 0, dim: 0, name: batch, min: 1, max: 4}
quantize: {scheme: 8da8w, convolutions: all}
tolerance: {atol: 1.0e-4, rtol: 1.0e-4}
"""
FACTORY = """import torch
from torch import nn


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, padding=1)
        self.depthwise = nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.expand = nn.Conv2d(32, 64, 1)
        self.down = nn.Conv2d(64, 48, 1, stride=2, bias=False)
        self.mix = nn.Conv2d(48, 40, 3, stride=2, padding=1)

    def forward(self, x):
        x = torch.relu(self.depthwise(torch.relu(self.stem(x))))
        return self.mix(torch.relu(self.down(torch.relu(self.expand(x)))))


def make():
    torch.manual_seed(0)
    return Cnn().eval(), (torch.randn(2, 3, 12, 12),)
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quantized_cnn")
    (folder / "tl_quantized_cnn.py").write_text(FACTORY)
    (folder / f"{NAME}.yaml").write_text(MODEL)
    run_scons("model=" + str(folder / f"{NAME}.yaml"), "run=1", "build_dir=" + BUILD)
    return folder, os.path.join(REPO, build_layout.output_dir([NAME], build_dir=BUILD))


def test_self_check_and_kernels(built):
    _, out = built
    passed_check(out, NAME)
    with open(build_layout.kernel_plan(out)) as f:
        plan = f.read()
    # The dense convolutions run as the quantized convolution; the depthwise one stays a
    # float convolution.
    assert "tailor::quantized::native::conv2d_out" in plan
    assert "aten::convolution.out" in plan


@pytest.mark.parametrize("level", cpu_levels())
def test_runner_matches_the_quantized_cnn(built, tmp_path, monkeypatch, level):
    from exporter.quantize.apply import quantize_for_export
    folder, out = built
    monkeypatch.syspath_prepend(str(folder))
    from tl_quantized_cnn import make
    model, inputs = make()
    quantized, report = quantize_for_export(model, inputs, {"scheme": "8da8w",
                                                            "convolutions": "all"})
    assert report.convolutions == ("stem", "expand", "down", "mix")
    assert report.float_convolutions == 1
    x = torch.randn(3, 3, 12, 12, generator=torch.Generator().manual_seed(3))
    np.save(tmp_path / "x.npy", x.numpy())
    proc = subprocess.run([build_layout.runner(out), build_layout.program(out, NAME),
                           "--input", str(tmp_path / "x.npy"), "--output",
                           str(tmp_path / "y.npy")],
                          capture_output=True, text=True, env=dict(os.environ, TL_CPU_LEVEL=level))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = np.load(tmp_path / "y.npy")
    with torch.no_grad():
        want, fp32 = quantized(x).numpy(), model(x).numpy()
    assert got.shape == (3, 40, 3, 3)
    np.testing.assert_allclose(got, want, atol=1e-4, rtol=1e-4)
    # Near the float model: 8 bits, within 2% of the output range.
    assert np.abs(got - fp32).max() < 0.02 * np.abs(fp32).max()


class _Malformed(torch.nn.Module):
    """tailor_quant::conv2d with weights that do not fit its input (3 channels are padded to
    4: 36 inputs a patch, not 27), or a negative padding."""

    def __init__(self, weight_bytes: int, padding: int):
        super().__init__()
        self.register_buffer("weight", torch.zeros(2, weight_bytes, dtype=torch.int8))
        self.register_buffer("weight_scales", torch.ones(1, 16))
        self.padding = padding

    def forward(self, x):
        return torch.ops.tailor_quant.conv2d(x, self.weight, self.weight_scales, None, [3, 3],
                                             [1, 1], [self.padding, self.padding], [1, 1])


@pytest.mark.parametrize("weight_bytes, padding, says", [
    (27 * 8, 1, "tailor_quant::conv2d.out: 36 inputs per row, weight [2, 216] and "
                "weight_scales [1, 16] do not fit together at 8 bits"),
    (36 * 8, -1, "conv2d.out: kernel_size, stride and dilation must be two values >= 1, "
                 "padding two values >= 0")])
def test_a_malformed_quantized_convolution_is_refused(built, tmp_path, weight_bytes, padding,
                                                      says):
    from exporter.export import export
    _, out = built
    path = tmp_path / "malformed.pte"
    export(_Malformed(weight_bytes, padding).eval(), (torch.randn(1, 3, 6, 6),)).save(str(path))
    proc = subprocess.run([build_layout.runner(out), str(path)], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert says in proc.stderr, proc.stderr
