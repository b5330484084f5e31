"""host-xnnpack end to end: the MLP and the GPT of the portable kernel issue built into
one runtime with the XNNPACK delegate, checked against torch eager, at the example
sizes (run=1) and at other batch sizes / sequence lengths (dynamic shapes, which this
XNNPACK handles by building a runtime per shape), with 1 and 2 threads."""

import os
import subprocess

import numpy as np
import pytest
import torch

from codegen import build_layout
from program.model import Delegate, DelegateCall
from program.pte import read_program
from tests.backends.conftest import require
from tests.conftest import REPO, passed_check, run_scons

BUILD = build_layout.tree("test-backends")
# Beside the portable kernels alone, XNNPACK takes every group it can run: the MLP whole
# and gpt_tiny's linear layers (beside the optimized kernels, the target's default, only
# groups with a dense convolution or an average pooling: test_xnnpack_partition.py).
OUT = os.path.join(REPO, build_layout.output_dir(["mlp", "gpt_tiny"], build_dir=BUILD,
                                                 target="host-xnnpack",
                                                 libraries=["portable", "prim"]))
INSTALL = "apt-get install -y libxnnpack-dev libpthreadpool-dev libcpuinfo-dev"


@pytest.fixture(scope="module")
def build():
    if not os.path.exists("/usr/include/xnnpack.h"):
        pytest.skip("XNNPACK is not installed; install it: " + INSTALL)
    return run_scons("target=host-xnnpack", "model=mlp,gpt_tiny", "libraries=portable,prim",
                     "run=1", "build_dir=" + BUILD)


def _run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([build_layout.runner(OUT), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def _compare(tmp_path, model: str, x: np.ndarray, expected: np.ndarray, *flags) -> None:
    np.save(tmp_path / "x.npy", x)
    proc = _run(build_layout.program(OUT, model), "--input", tmp_path / "x.npy", "--output",
                tmp_path / "y.npy", *flags)
    assert proc.returncode == 0, proc.stderr
    got = np.load(tmp_path / "y.npy")
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-4, rtol=1e-4)


def test_self_checks_pass_and_the_programs_are_delegated(build):
    for model in ("mlp", "gpt_tiny"):
        passed_check(OUT, model)
        program, _ = read_program(build_layout.program(OUT, model))
        assert any(isinstance(i, DelegateCall) for i in program.methods[0].instructions)
    # The MLP is one delegate: the runtime needs no kernel for it.
    with open(os.path.join(OUT, "selected_ops.yaml")) as f:
        assert "aten::addmm.out" not in f.read()
    symbols = subprocess.run(["nm", "-C", build_layout.runner(OUT)],
                             capture_output=True, text=True, check=True).stdout
    assert "tailor::xnnpack::kBackend" in symbols and "addmm_out" not in symbols


@pytest.mark.parametrize("batch", [1, 7, 8])
def test_mlp_other_batch_sizes(build, tmp_path, batch):
    from examples.mlp.model import make_mlp
    model, _ = make_mlp()
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(batch))
    with torch.no_grad():
        expected = model.eval()(x).numpy()
    _compare(tmp_path, "mlp", x.numpy(), expected)


@pytest.mark.parametrize("length,threads", [(1, 1), (3, 1), (32, 1), (17, 2)])
def test_gpt_tiny_other_lengths(build, tmp_path, length, threads):
    from examples.nanogpt.model import make_gpt_tiny
    model, _ = make_gpt_tiny()
    idx = torch.randint(0, 256, (1, length), generator=torch.Generator().manual_seed(length))
    with torch.no_grad():
        expected = model.eval()(idx).numpy()
    _compare(tmp_path, "gpt_tiny", idx.numpy(), expected, "--threads", threads)


def test_repeated_runs_reuse_the_runtime(build):
    proc = _run(build_layout.program(OUT, "gpt_tiny"), "--check", "--atol", "1e-4",
                "--rtol", "1e-4", "--repeat", "5")
    assert proc.returncode == 0, proc.stderr
    assert "ran 5 times" in proc.stdout


def test_a_runtime_without_the_backend_rejects_the_program(build, runner_bin):
    """The portable-only runner of tests/runtime (no backends) on a delegated program."""
    proc = subprocess.run([runner_bin, build_layout.program(OUT, "mlp")], capture_output=True,
                          text=True)
    assert proc.returncode == 1
    assert ("delegate 0 needs backend 'xnnpack', which this runtime was built without "
            "(its backends: none)") in proc.stderr
    assert "cannot load method 'forward': NotSupported" in proc.stderr


def test_threads_option_is_checked(build):
    proc = _run(build_layout.program(OUT, "mlp"), "--threads", "65")
    assert proc.returncode == 2 and "--threads: '65' is not a count from 0 to 64" in proc.stderr


def _conv_node(graph: dict, kind: str = "Convolution2d") -> dict:
    return next(n for n in graph["nodes"] if n["kind"] == kind)


def _set(node: dict, **window) -> None:
    node["window"] = {**node["window"], **window}


def _reshape_pooled(graph: dict) -> None:
    """A plain [64, 8] view of the channels-last [1, 8, 8, 8] pooled tensor, in place of
    the global average pooling (dropped, so that no value is left unread)."""
    graph["nodes"].remove(_conv_node(graph, "GlobalAveragePooling2d"))
    _conv_node(graph, "Reshape").update(inputs=[_conv_node(graph, "MaxPooling2d")["output"]],
                                        shape=[{"size": -1, "arg": -1}, {"size": 8, "arg": -1}])


def _assert_mutated_payload_fails(module, shape, mutate, message, tmp_path):
    """Exports `module` delegated, applies `mutate` to its XNNPACK graph and checks the
    runner refuses the program at load with `message`."""
    from backends.xnnpack import XnnpackPartitioner
    from backends.xnnpack.payload import compile_json, decode
    from exporter.export import export
    from program.pte import serialize

    torch.manual_seed(0)
    x = torch.randn(*shape)
    program = export(module.eval(), (x,), partitioner=XnnpackPartitioner())
    graph = decode(program.method.delegates[0].data)
    mutate(graph)
    program.method.delegates[0] = Delegate("xnnpack", compile_json(graph))
    (tmp_path / "bad.pte").write_bytes(serialize(program.data, program.segment))
    np.save(tmp_path / "x.npy", x.numpy())
    proc = _run(tmp_path / "bad.pte", "--input", tmp_path / "x.npy")
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert message in proc.stderr, proc.stderr


@pytest.mark.parametrize("mutate,message", [
    (lambda g: g["values"][_conv_node(g)["inputs"][0]].update(layout="Plain"),
     "is not channels-last"),
    (lambda g: g["values"][g["outputs"][0]].update(layout="ChannelsLast"),
     "reads or writes a channels-last tensor"),
    (lambda g: _conv_node(g).pop("window"), "has no window"),
    (lambda g: _set(_conv_node(g), stride_h=0), "window size 0"),
    (lambda g: _set(_conv_node(g), kernel_w=1 << 20), "window size 1048576"),
    (lambda g: _set(_conv_node(g), pad_left=1 << 20), "padding 1048576"),
    (lambda g: _conv_node(g).update(groups=0), "0 groups"),
    (lambda g: _conv_node(g)["inputs"].__setitem__(1, _conv_node(g)["inputs"][2]),
     "the filter is not a constant 4D tensor"),
    (lambda g: _conv_node(g)["inputs"].__setitem__(1, _conv_node(g)["inputs"][0]),
     "the filter is not a constant 4D tensor"),
    # Sizes that do not fit together are found when the runtime is built, at load too.
    (lambda g: _set(_conv_node(g), kernel_h=5), "a filter [8, 3, 3, 3] for 3 input channels"),
    (lambda g: _conv_node(g).update(groups=3), "a filter [8, 3, 3, 3] for 3 input channels"),
    (lambda g: _set(_conv_node(g, "MaxPooling2d"), kernel_h=40), "the window does not fit"),
    (_reshape_pooled, "a reshape that would move elements between layouts"),
    (lambda g: _conv_node(g, "Add")["inputs"].__setitem__(1, g["outputs"][0]),
     "reads value"),
    # Found by the fuzzer: XNNPACK gives a value nobody reads no memory, then asserts.
    (lambda g: _conv_node(g, "Add")["inputs"].__setitem__(1, _conv_node(g, "Add")["inputs"][0]),
     "which no node reads and is no output"),
])
def test_a_malformed_conv_payload_is_an_error_at_load(build, tmp_path, mutate, message):
    """The delegate checks what the payload says against itself and the program: an
    error naming the problem, never a crash or a wrong read."""
    from tests.backends.test_xnnpack_partition import ConvNet

    _assert_mutated_payload_fails(ConvNet(), (1, 3, 16, 16), mutate, message, tmp_path)


class PadResizePRelu(torch.nn.Module):
    """conv -> pad (width, height and channels) -> bilinear resize -> PReLU -> conv ->
    pad -> resize (align_corners) -> PReLU of one weight: channels-last all through."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 4, 3)
        self.act1 = torch.nn.PReLU(6)
        self.conv2 = torch.nn.Conv2d(6, 5, 3, padding=1)
        self.act2 = torch.nn.PReLU()
        with torch.no_grad():
            self.act1.weight.uniform_(-1, 1)

    def forward(self, x):
        y = torch.nn.functional.pad(self.conv1(x), (1, 2, 0, 1, 1, 1), value=0.5)
        y = self.act1(torch.nn.functional.interpolate(y, size=(11, 13), mode="bilinear"))
        y = torch.nn.functional.pad(self.conv2(y), (2, 0, 1, 1))
        y = torch.nn.functional.interpolate(y, scale_factor=1.5, mode="bilinear",
                                            align_corners=True)
        return self.act2(y)


def test_pad_resize_and_prelu_run_on_xnnpack_as_eager(build, tmp_path):
    """Constant pad, bilinear resize and PReLU inside one delegate between convolutions,
    channels-last throughout (the pads of channels too), against eager."""
    from backends.xnnpack import XnnpackPartitioner
    from backends.xnnpack.payload import decode
    from exporter.export import export

    torch.manual_seed(0)
    model, x = PadResizePRelu().eval(), torch.randn(2, 3, 9, 8)
    program = export(model, (x,), partitioner=XnnpackPartitioner())
    assert [type(i).__name__ for i in program.method.instructions] == ["DelegateCall"]
    kinds = [n["kind"] for n in decode(program.method.delegates[0].data)["nodes"]]
    assert kinds.count("ConstantPad") == 2 and kinds.count("ResizeBilinear2d") == 2
    assert kinds.count("PRelu") == 2
    program.save(str(tmp_path / "m.pte"))
    with torch.no_grad():
        expected = model(x).numpy()
    np.save(tmp_path / "x.npy", x.numpy())
    proc = _run(tmp_path / "m.pte", "--input", tmp_path / "x.npy", "--output",
                tmp_path / "y.npy")
    assert proc.returncode == 0, proc.stderr
    got = np.load(tmp_path / "y.npy")
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-5, rtol=1e-5)


def _node(graph: dict, kind: str) -> dict:
    return next(n for n in graph["nodes"] if n["kind"] == kind)


@pytest.mark.parametrize("mutate,message", [
    # Found when the runtime is built for the input's sizes, at load too.
    (lambda g: [_node(g, "ConstantPad")[k].pop() for k in ("pre_padding", "post_padding")],
     "padding for 3 dims of a 4-d"),
    (lambda g: _node(g, "ConstantPad").update(pre_padding=[0, 0, 1 << 25, 0]),
     "padding 33554432/1 of dim 2"),
    (lambda g: _node(g, "ConstantPad").pop("post_padding"), "does not give padding"),
    (lambda g: g["values"][_node(g, "ResizeBilinear2d")["output"]].update(layout="Plain"),
     "(ResizeBilinear2d) reads or writes a tensor that is not channels-last"),
    (lambda g: _node(g, "ResizeBilinear2d").update(output_width=0), "resize to 11x0"),
    (lambda g: _node(g, "PRelu")["inputs"].__setitem__(1, _node(g, "PRelu")["inputs"][0]),
     "the slope is not a constant 1D tensor"),
])
def test_a_malformed_pad_resize_or_prelu_payload_is_an_error_at_load(build, tmp_path, mutate,
                                                                    message):
    _assert_mutated_payload_fails(PadResizePRelu(), (1, 3, 9, 8), mutate, message, tmp_path)
