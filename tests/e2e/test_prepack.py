"""Constant weights packed once at method load (runtime/kernel/prepack.h): a linear layer's
weight as the GEMM's strips, a Winograd convolution's filters transformed. Real builds of
the host runtime (optimized kernels) and of the size profile (portable kernels), one
program with both layers, compared with torch and with the runtime's own per-call path."""

import json
import os
import re
import subprocess

import numpy as np
import pytest
import torch

from codegen import build_layout
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-prepack")
FLOAT = 4
HEADER = 64  # kPrepackAlignment: each packed copy's header line
AVX2_STRIP = 16  # the AVX2 micro-kernels' strip width (kernels/optimized/util/gemm_avx2)


class ConvThenLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        # 3x3, stride 1, 32 or more channels each side, 8x8 tiles of 2x2: Winograd's path.
        self.conv = torch.nn.Conv2d(32, 40, 3, padding=1)
        self.linear = torch.nn.Linear(40 * 16 * 16, 100)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.linear(y.reshape(y.shape[0], -1))


@pytest.fixture(scope="module")
def built():
    from exporter.export import export
    torch.manual_seed(0)
    model = ConvThenLinear().eval()
    # Integer-valued weights and inputs: every sum exact in any order.
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randint(-2, 3, p.shape).float())
    x = torch.randint(-2, 3, (20, 32, 16, 16)).float()
    folder = os.path.join(REPO, BUILD)
    os.makedirs(folder, exist_ok=True)
    pte = os.path.join(folder, "prepack.pte")
    export(model, (x,)).save(pte)
    np.save(os.path.join(folder, "x.npy"), x.numpy())
    with torch.no_grad():
        np.save(os.path.join(folder, "want.npy"), model(x).numpy())
    run_scons("model=mlp", f"programs={BUILD}/prepack.pte", "build_dir=" + BUILD)
    run_scons("model=mlp", f"programs={BUILD}/prepack.pte", "build_dir=" + BUILD,
              "profile=size")
    host, size = (build_layout.runner(os.path.join(REPO, build_layout.output_dir(
        ["mlp"], [pte], build_dir=BUILD, profile=profile))) for profile in ("", "size"))
    return host, size, folder


def _run(runner, folder, *args, level="avx2"):
    """The runner's --json summary and output of one run of prepack.pte."""
    summary = os.path.join(folder, "summary.json")
    out = os.path.join(folder, "out.npy")
    env = dict(os.environ, TL_CPU_LEVEL=level)
    proc = subprocess.run([runner, os.path.join(folder, "prepack.pte"), "--input",
                           os.path.join(folder, "x.npy"), "--output", out, "--json", summary,
                           *args], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(summary) as f:
        return json.load(f), np.load(out)


def _avx2():
    with open("/proc/cpuinfo") as f:
        return "avx2" in f.read()


@pytest.mark.skipif(not _avx2(), reason="the expected sizes are the AVX2 strips'")
def test_each_constant_weight_is_packed_once_at_load(built):
    host, _, folder = built
    want = np.load(os.path.join(folder, "want.npy"))
    packed, out = _run(host, folder, "--repeat", "5")
    # Two copies, however many runs: the linear weight (10240 x 100: 7 strips of 16, each
    # 10240 deep) and the convolution's 40 x 32 filters as 16 transformed taps each, for
    # 64 tiles streamed (conv_winograd.h): each tap's 32 x 40 as 3 strips of 16.
    linear = HEADER + 10240 * 112 * FLOAT
    winograd = HEADER + 16 * 32 * 48 * FLOAT
    assert packed["prepacked_weights"] == 2
    assert packed["prepacked_bytes"] == linear + winograd
    np.testing.assert_array_equal(out, want)
    # The per-call path of the same binary gives the same bits.
    unpacked, out_per_call = _run(host, folder, "--no-prepack")
    assert unpacked["prepacked_weights"] == 0
    np.testing.assert_array_equal(out_per_call, out)


def test_method_memory_reserves_the_packed_copies(built):
    host, _, folder = built
    pte = os.path.join(folder, "prepack.pte")

    def planned(level):
        r = subprocess.run([host, pte, "--max-memory", "1"], capture_output=True, text=True,
                           env=dict(os.environ, TL_CPU_LEVEL=level))
        return int(re.search(r"plans (\d+) bytes of memory", r.stderr)[1])

    # The copies follow the CPU's strips: AVX2's 16 columns pad the linear layer's 100 to
    # 112 and the streamed filters' 40 to 48, the baseline's 8 to 104 and 40; the method
    # plans exactly the difference.
    if _avx2():
        assert planned("avx2") - planned("baseline") == (10240 * (112 - 104) +
                                                         16 * 32 * (48 - 40)) * FLOAT


def _symbols(binary):
    return subprocess.run(["nm", "-C", binary], capture_output=True, text=True,
                          check=True).stdout


def test_the_size_profile_packs_nothing(built):
    host, size, folder = built
    summary, out = _run(size, folder)
    assert summary["prepacked_weights"] == 0 and summary["prepacked_bytes"] == 0
    np.testing.assert_array_equal(out, np.load(os.path.join(folder, "want.npy")))
    # No kernel of the size profile has a prepack hook: its kernel table says so
    # (gen::kPrepackPath is nullptr) and the runtime links no prepack code at all, while
    # the host runtime, whose GEMM and Winograd kernels have hooks, links the path.
    assert "kMethodPrepack" in _symbols(host) and "PrepackCall::" in _symbols(host)
    assert "prepack" not in _symbols(size).lower()


@pytest.fixture(scope="module")
def dynamic_built():
    """A Winograd convolution whose height and width are dynamic (planned, and its filters
    packed at load, for 32 x 32), built into the host runtime."""
    from exporter.export import export
    torch.manual_seed(0)
    model = torch.nn.Conv2d(32, 40, 3, padding=1).eval()
    height, width = torch.export.Dim("h", min=3, max=32), torch.export.Dim("w", min=3, max=32)
    folder = os.path.join(REPO, BUILD + "-dynamic")
    os.makedirs(folder, exist_ok=True)
    pte = os.path.join(folder, "conv.pte")
    export(model, (torch.randn(1, 32, 32, 32),),
           dynamic_shapes={"input": {2: height, 3: width}}).save(pte)
    build = BUILD + "-dynamic"
    run_scons("model=mlp", f"programs={build}/conv.pte", "build_dir=" + build)
    runner = build_layout.runner(os.path.join(REPO, build_layout.output_dir(
        ["mlp"], [pte], build_dir=build)))
    return model, runner, folder


@pytest.mark.parametrize("level", ["", "avx2", "baseline"])
@pytest.mark.parametrize("size", [(32, 32), (16, 16), (7, 12), (3, 5)])
def test_filters_packed_for_the_planned_size_serve_other_sizes(dynamic_built, size, level):
    """The filters are packed once, in the layout of the planned 32 x 32 (F(4x4), 64
    tiles, in the strips of the CPU level's GEMM): a call of another size takes that copy
    while its own plan fits it and transforms the filters per call otherwise; either way
    the result is torch's, and the per-call path's."""
    model, runner, folder = dynamic_built
    env = dict(os.environ, TL_CPU_LEVEL=level) if level else None
    x = torch.randn(1, 32, *size)
    np.save(os.path.join(folder, "x.npy"), x.numpy())
    with torch.no_grad():
        want = model(x).numpy()
    outs = []
    for args in ((), ("--no-prepack",)):
        out = os.path.join(folder, "out.npy")
        summary = os.path.join(folder, "summary.json")
        proc = subprocess.run([runner, os.path.join(folder, "conv.pte"), "--input",
                               os.path.join(folder, "x.npy"), "--output", out, "--json",
                               summary, *args], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        with open(summary) as f:
            assert json.load(f)["prepacked_weights"] == (0 if args else 1)
        outs.append(np.load(out))
    for got in outs:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-5)
