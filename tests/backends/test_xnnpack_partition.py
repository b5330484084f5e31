"""The XNNPACK partitioner and exporter/delegation.py, at export (no build): what is
claimed and what is not, grouping, weights stored once, op info, the report and CLI."""

import subprocess
import sys

import pytest
import torch

from backends.xnnpack import XnnpackPartitioner
from backends.xnnpack.partitioner import OPS
from backends.xnnpack.payload import decode
from codegen.kernel_manifest import load_library
from codegen.oplist import ops_from_program
from codegen.schema import load_aten_schemas
from exporter.export import export
from program.model import DelegateCall, Int, Tensor
from tests.conftest import REPO


def _export(module, *inputs, dynamic_shapes=None):
    return export(module, inputs, dynamic_shapes, partitioner=XnnpackPartitioner())


def _kinds(program) -> list:
    return [type(i).__name__ for i in program.method.instructions]


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def test_mlp_is_one_delegate_with_weights_stored_once():
    torch.manual_seed(0)
    model, x = Mlp(), torch.randn(4, 16)
    plain = export(model, (x,))
    program = _export(model, x)
    assert _kinds(program) == ["DelegateCall"]
    assert program.operators == []
    # Weights and biases are in the constant segment once (plus the backend's slack),
    # and the payload holds no tensor data.
    assert len(program.segment) == len(plain.segment) + 16
    payload = program.method.delegates[0].data
    assert len(payload) < 1024
    graph = decode(payload)
    assert [n["kind"] for n in graph["nodes"]] == ["FullyConnected", "Clamp", "FullyConnected"]
    assert sum(v["constant"] for v in graph["values"]) == 4
    # Values internal to the delegate are gone from the program and its arena.
    assert len(program.method.values) < len(plain.method.values)
    assert program.plan.arena_size < plain.plan.arena_size


def test_every_op_the_partitioner_claims_has_a_portable_kernel():
    # A group worth() turns down, or a target without the backend, runs on the kernels.
    portable = set(load_library(f"{REPO}/manifests/kernels/portable.yaml").ops())
    assert sorted(OPS - portable) == []


def test_report_counts_and_marks_the_graph():
    report = _export(Mlp(), torch.randn(2, 16)).delegation
    assert len(report.groups) == 1
    # The exporter already folded the weight transposes into constants.
    assert report.delegated_nodes == 3 and report.folded == () and report.outside == ()
    assert ("aten::addmm.out", 2, 0) in report.op_table()
    text = report.format()
    assert "delegated subgraphs: 1" in text and "non-delegated nodes: 0" in text
    assert "[0] relu" in text and "[f]" not in text


class Mixed(torch.nn.Module):
    """Claimed (linear, softmax) around what XNNPACK 2022 lacks (bmm, gelu, transpose)."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):                    # x: [2, 3, 8]
        y = self.proj(x)
        att = torch.softmax(y @ y.transpose(1, 2), dim=-1)
        return torch.nn.functional.gelu(att @ y)


def test_unsupported_ops_stay_with_the_kernels():
    program = _export(Mixed(), torch.randn(2, 3, 8))
    report = program.delegation
    outside = {op: why for _, op, why in report.outside}
    assert "aten::bmm.out" in outside and "aten::gelu.out" in outside
    assert "transpose" in outside["aten::permute_copy.out"]
    # The op info (what the runtime must carry kernels for) lists only what stayed out.
    ops = {use.op for use in ops_from_program(program.data, "m", load_aten_schemas(),
                                              "m.pte").ops}
    assert {"aten::bmm.out", "aten::gelu.out"} <= ops
    assert "aten::addmm.out" not in ops and "aten::_softmax.out" not in ops


@pytest.mark.parametrize("fn,why", [
    (lambda x: torch.softmax(x, dim=0) * 2, "softmax over a dim other than the last"),
    (lambda x: (x.long() + 1).float(), "Long tensor"),
    (lambda x: x.sum(dim=-1, keepdim=True) + 1, "not an XNNPACK node"),
])
def test_checks_dtype_and_attributes(fn, why):
    class M(torch.nn.Module):
        def forward(self, x):
            return fn(x)
    report = _export(M(), torch.randn(3, 4)).delegation
    assert any(why in reason for _, _, reason in report.outside), report.format()


def test_a_3d_convolution_stays_on_the_kernels_with_the_reason():
    report = _export(torch.nn.Conv3d(2, 3, 2), torch.randn(1, 2, 3, 4, 4)).delegation
    assert [(op, why) for _, op, why in report.outside] == [
        ("aten::convolution.out", "a convolution of rank 5 (XNNPACK runs 1-d and 2-d ones; "
                                  "it has no 3-d convolution)")]


def _outside(fn, x) -> dict:
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.nn.PReLU(3)

        def forward(self, x):
            return fn(self, x)
    report = _export(M(), x).delegation
    return {op: why for _, op, why in report.outside}


def test_pad_resize_and_prelu_are_delegated():
    program = _export(PadResize(), torch.randn(1, 3, 5, 7))
    assert _kinds(program) == ["DelegateCall"], program.delegation.format()
    nodes = decode(program.method.delegates[0].data)["nodes"]
    pad, resize, prelu = (next(n for n in nodes if n["kind"] == k)
                          for k in ("ConstantPad", "ResizeBilinear2d", "PRelu"))
    # torch's pads run from the last dim backwards; the payload's are per dim.
    assert pad["pre_padding"] == [0, 0, 2, 1] and pad["post_padding"] == [0, 0, 0, 3]
    assert pad["padding_value"] == 0.5
    assert (resize["output_height"], resize["output_width"], resize["align_corners"]) == \
        (14, 22, False)
    # PReLU's x > 0 and w * x go into the one node.
    assert {op for _, op in program.delegation.groups[0]} >= {"aten::where.self_out"}
    assert len(program.delegation.folded) == 2


class PadResize(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.nn.PReLU(3)

    def forward(self, x):
        y = torch.nn.functional.pad(x, (1, 3, 2, 0), value=0.5)
        return self.act(torch.nn.functional.interpolate(y, scale_factor=2, mode="bilinear"))


@pytest.mark.parametrize("fn,op,why", [
    (lambda m, x: torch.nn.functional.pad(x, (1, -1)), "aten::constant_pad_nd.out",
     "a negative padding (a crop"),
    (lambda m, x: torch.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear"),
     "aten::upsample_bilinear2d.vec_out", "a scale factor (1.5) that is not output/input size"),
    (lambda m, x: torch.where(x > 0, x, x * 2.0 * m.act.weight.view(3, 1, 1)),
     "aten::where.self_out", "a where that is not a PReLU's"),
    (lambda m, x: torch.where(x > 0, x, x * torch.ones(1, 1, 5, 1)), "aten::where.self_out",
     "a PReLU weight that is not one per channel or one for all"),
    (lambda m, x: torch.where(x > 1, x, x * 0.5), "aten::where.self_out",
     "a where that is not a PReLU's"),
    (lambda m, x: (lambda w: torch.where(x > 0, x, w) + w)(x * m.act.weight.view(3, 1, 1)),
     "aten::where.self_out", "a PReLU whose x > 0 or w * x is read elsewhere"),
])
def test_pad_resize_and_prelu_refusals_name_the_reason(fn, op, why):
    reasons = _outside(fn, torch.randn(1, 3, 5, 7))
    assert op in reasons and why in reasons[op], reasons


def test_a_resize_to_the_inverse_of_its_scale_factor_is_delegated():
    """scale_factor 0.5 of 8 rows is 4, and 1/0.5 is 8/4: torch's scale and XNNPACK's
    agree; of 7 rows (3) they do not."""
    fn = lambda m, x: torch.nn.functional.interpolate(x, scale_factor=0.5, mode="bilinear")
    assert _outside(fn, torch.randn(1, 3, 8, 8)) == {}
    assert "aten::upsample_bilinear2d.vec_out" in _outside(fn, torch.randn(1, 3, 7, 8))


def test_groups_stay_convex():
    """relu -> gelu -> add(relu, gelu): relu and add cannot share one delegate, since
    the gelu between them runs outside it."""
    class M(torch.nn.Module):
        def forward(self, x):
            r = torch.sigmoid(x) * 3.0
            return r + torch.nn.functional.gelu(r)
    program = _export(M(), torch.randn(4, 4))
    assert _kinds(program) == ["DelegateCall", "KernelCall", "DelegateCall"]
    assert len(program.delegation.groups) == 2


def test_lone_reshapes_are_not_delegated():
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.gelu(x.view(2, 6)).view(3, 4)
    program = _export(M(), torch.randn(3, 4))
    assert "DelegateCall" not in _kinds(program)
    assert all("not worth" in why for _, op, why in program.delegation.outside
               if op == "aten::view_copy.out")


def test_dynamic_reshape_reads_its_size_at_run_time():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x):                # x: [B, T, 8], T dynamic
            return torch.relu(self.fc(x))
    t = torch.export.Dim("T", max=16)
    program = _export(M(), torch.randn(1, 5, 8), dynamic_shapes=({1: t},))
    delegate_calls = [i for i in program.method.instructions
                      if isinstance(i, DelegateCall)]
    assert len(delegate_calls) == 1
    graph = decode(program.method.delegates[0].data)
    reshapes = [n for n in graph["nodes"] if n["kind"] == "Reshape"]
    assert reshapes and any(d["arg"] >= 0 for n in reshapes for d in n["shape"])
    values = program.method.values
    args = delegate_calls[0].args
    assert any(isinstance(values[a], Int) for a in args)


def test_cli_prints_the_report(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "exporter", "--manifest",
                           "manifests/models/mlp.yaml", "--backend", "xnnpack",
                           "--delegation-report"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "delegated to xnnpack: 1 subgraphs, 3 nodes; 0 nodes left to kernels" in proc.stdout
    assert "aten::addmm.out" in proc.stdout and "[0] addmm" in proc.stdout


def test_manifest_rejects_an_unknown_backend(tmp_path):
    from codegen.errors import ManifestError
    from exporter.manifest import parse_manifest
    with pytest.raises(ManifestError, match="backend 'xnnpak' is not one of xnnpack, none"):
        parse_manifest("m.yaml", {"description": "d", "factory": "a.b:c", "backend": "xnnpak"})


class ConvNet(torch.nn.Module):
    """conv + batch norm + ReLU, depthwise conv + ReLU6, a residual add, max pooling,
    global average pooling and a classifier: what the torchvision models are made of."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(8)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = y + torch.nn.functional.relu6(self.dw(y))
        y = torch.nn.functional.max_pool2d(y, 3, 2, 1)
        return self.fc(torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))


def test_a_conv_net_is_one_delegate_with_repacked_weights_stored_once():
    torch.manual_seed(0)
    model, x = ConvNet().eval(), torch.randn(1, 3, 16, 16)
    plain = export(model, (x,))
    program = _export(model, x)
    assert _kinds(program) == ["DelegateCall"] and program.operators == []
    # The conv weights are stored once, in XNNPACK's layout: as many constant bytes.
    def constant_bytes(p):
        return sum(v.nbytes for v in p.method.values
                   if isinstance(v, Tensor) and v.constant is not None)
    assert constant_bytes(program) == constant_bytes(plain)
    graph = decode(program.method.delegates[0].data)
    kinds = [n["kind"] for n in graph["nodes"]]
    assert kinds == ["Convolution2d", "Clamp", "DepthwiseConvolution2d", "Clamp", "Add",
                     "MaxPooling2d", "GlobalAveragePooling2d", "Reshape", "FullyConnected"]
    values = program.method.values
    args = program.method.instructions[0].args
    filters = [values[args[graph["values"][n["inputs"][1]]["arg"]]].sizes
               for n in graph["nodes"] if "Convolution" in n["kind"]]
    assert filters == [[8, 3, 3, 3], [1, 3, 3, 8]]     # OHWI; depthwise 1HWO
    # The image enters channels-last (the delegate transposes it); the logits are plain.
    layouts = {v["arg"]: v["layout"] for v in graph["values"] if v["arg"] >= 0}
    assert layouts[0] == "ChannelsLast" and layouts[len(args) - 1] == "Plain"


NO_DENSE_CONVOLUTION = ("no dense convolution or average pooling: the optimized kernels run "
                        "these as fast without a delegate call and its layout copies")


class DepthwiseBetweenKernels(torch.nn.Module):
    """A depthwise convolution with its ReLU6, and a max pooling, each alone between GELUs
    (which XNNPACK 2022 lacks): what an int8 MobileNet's float layers look like between
    its quantized convolutions."""

    def __init__(self):
        super().__init__()
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)

    def forward(self, x):
        y = torch.nn.functional.gelu(torch.nn.functional.relu6(self.dw(
            torch.nn.functional.gelu(x))))
        return torch.nn.functional.gelu(torch.nn.functional.max_pool2d(y, 2))


def test_beside_the_optimized_kernels_only_groups_with_a_dense_convolution_delegate():
    """host-xnnpack lists the optimized kernels: a linear-only group would be no faster on
    XNNPACK, nor a group of a depthwise convolution or a pooling alone, which would add
    layout copies at its edges; they stay with the kernels. The conv net stays one
    delegate, and without the optimized kernels the lone groups are delegated."""
    beside = XnnpackPartitioner(beside_optimized=True)
    mlp = export(Mlp(), (torch.randn(4, 16),), partitioner=beside)
    assert "DelegateCall" not in _kinds(mlp)
    assert {why for _, _, why in mlp.delegation.outside} == {NO_DENSE_CONVOLUTION}
    torch.manual_seed(0)
    conv = export(ConvNet().eval(), (torch.randn(1, 3, 16, 16),), partitioner=beside)
    assert _kinds(conv) == ["DelegateCall"]
    x = (torch.randn(1, 8, 8, 8),)
    lone = export(DepthwiseBetweenKernels().eval(), x, partitioner=beside)
    assert "DelegateCall" not in _kinds(lone)
    assert NO_DENSE_CONVOLUTION in {why for _, _, why in lone.delegation.outside}
    alone = export(DepthwiseBetweenKernels().eval(), x, partitioner=XnnpackPartitioner())
    assert _kinds(alone).count("DelegateCall") == 2


@pytest.mark.parametrize("layer", [
    torch.nn.ConvTranspose2d(8, 1, 2, stride=2),    # one input channel a group in its weight
    torch.nn.AvgPool2d(2),
])
def test_beside_the_optimized_kernels_lone_transposed_convolutions_and_average_pools_delegate(
        layer):
    """What the optimized kernels leave to portable's loops or lack, XNNPACK takes even
    alone between kernels: a transposed convolution, an average pooling."""
    module = torch.nn.Sequential(torch.nn.GELU(), layer, torch.nn.GELU()).eval()
    program = export(module, (torch.randn(1, 8, 8, 8),),
                     partitioner=XnnpackPartitioner(beside_optimized=True))
    assert _kinds(program).count("DelegateCall") == 1


def test_beside_the_optimized_kernels_winograd_convolutions_stay_with_the_kernels():
    """A 3x3 stride-1 convolution of 32 channels or more on a plane of 32 tiles or more
    runs faster on the optimized kernels (Winograd) than on XNNPACK; the same convolution
    at stride 2, or without the optimized kernels, is delegated."""
    def conv(stride):
        return torch.nn.Sequential(torch.nn.Conv2d(32, 32, 3, stride, 1),
                                   torch.nn.ReLU()).eval()
    x = (torch.randn(1, 32, 16, 16),)
    beside = export(conv(1), x, partitioner=XnnpackPartitioner(beside_optimized=True))
    assert "DelegateCall" not in _kinds(beside)
    assert "a 3x3 stride-1 convolution: the optimized kernels run it faster (Winograd)" in {
        why for _, _, why in beside.delegation.outside}
    strided = export(conv(2), x, partitioner=XnnpackPartitioner(beside_optimized=True))
    assert _kinds(strided) == ["DelegateCall"]
    alone = export(conv(1), x, partitioner=XnnpackPartitioner())
    assert _kinds(alone) == ["DelegateCall"]


def test_a_target_with_the_optimized_kernels_delegates_as_its_build_does():
    from exporter.export import partitioner_for_target
    assert partitioner_for_target("host-xnnpack").beside_optimized
    assert partitioner_for_target("host") is None
    # profile=size keeps to the portable kernels, in the build (codegen.target.
    # kernel_library_order) and in export(target=, profile=) alike.
    assert not partitioner_for_target("host-xnnpack", "size").beside_optimized
    assert partitioner_for_target("host-xnnpack", "none").beside_optimized
    from exporter.manifest import make_partitioner
    assert not make_partitioner("xnnpack", ("portable", "prim")).beside_optimized


class KeywordNet(torch.nn.Module):
    """1-d convolutions around a MaxPool1d (unsqueeze, 2-d pooling, squeeze) and a
    global average pooling, as keyword-spotting models have."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(10, 16, 3, padding=1)
        self.c2 = torch.nn.Conv1d(16, 16, 3, padding=1, groups=16)
        self.fc = torch.nn.Linear(16, 3)

    def forward(self, x):
        y = torch.nn.functional.max_pool1d(torch.relu(self.c1(x)), 2)
        y = torch.nn.functional.adaptive_avg_pool1d(torch.relu(self.c2(y)), 1)
        return self.fc(y.flatten(1))


def test_1d_convolutions_and_pooling_stay_channels_last_in_one_delegate():
    program = _export(KeywordNet().eval(), torch.randn(1, 10, 20))
    assert _kinds(program) == ["DelegateCall"], program.delegation.format()
    graph = decode(program.method.delegates[0].data)
    assert sum(n["kind"] == "Reshape" for n in graph["nodes"]) >= 4  # (un)squeezes


def _reasons(fn, *inputs) -> dict:
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("w", torch.randn(4, 3, 3, 3))

        def forward(self, *xs):
            return fn(self, *xs)
    report = _export(M(), *inputs).delegation
    return {op: why for _, op, why in report.outside}


@pytest.mark.parametrize("fn,op,why", [
    (lambda m, x: torch.nn.functional.avg_pool2d(x, 3, 2, 1), "aten::avg_pool2d.out",
     "count_include_pad with padding"),
    (lambda m, x: torch.nn.functional.avg_pool2d(x, 2, divisor_override=3),
     "aten::avg_pool2d.out", "divisor_override"),
    (lambda m, x: torch.nn.functional.max_pool2d(x, 2, return_indices=True),
     "aten::max_pool2d_with_indices.out", "its indices are used"),
    (lambda m, x: torch.nn.functional.max_pool2d(x, 2, 1, 1, dilation=2),
     "aten::max_pool2d_with_indices.out", "dilation and padding"),
    (lambda m, x: torch.nn.functional.max_pool2d(x, 1), "aten::max_pool2d_with_indices.out",
     "a 1x1 window"),
    (lambda m, x: torch.nn.functional.adaptive_avg_pool2d(x, (3, 3)),
     "aten::_adaptive_avg_pool2d.out", "uneven windows"),
    (lambda m, x: torch.nn.functional.conv_transpose2d(x, m.w.transpose(0, 1), stride=1,
                                                       output_padding=1, dilation=2),
     "aten::convolution.out", "output_padding not below the stride"),
    (lambda m, x: torch.nn.functional.conv2d(x, m.w * x.mean()), "aten::convolution.out",
     "the weight is not a constant"),
    (lambda m, x: torch.ops.aten.hardtanh.default(x, 2.0, 1.0), "aten::hardtanh.out",
     "min >= max"),
    (lambda m, x: torch.clamp(x, 0.5, 0.5), "aten::clamp.out", "min >= max"),
    (lambda m, x: torch.ops.aten.elu.default(x, 1.0, 2.0), "aten::elu.out",
     "scale or input_scale is not 1"),
    (lambda m, x: x.mean(dim=(1, 2)), "aten::mean.out", "other dims than H and W"),
    # Layouts: softmax and a flattening view of a convolution's (channels-last) output
    # stay with the kernels, which get it transposed back.
    (lambda m, x: torch.softmax(torch.nn.functional.conv2d(x, m.w), -1),
     "aten::_softmax.out", "channels-last"),
    (lambda m, x: torch.nn.functional.conv2d(x, m.w).flatten(2) * 2, "aten::view_copy.out",
     "a reshape of a tensor that is channels-last"),
    (lambda m, x: torch.nn.functional.conv2d(x, m.w) + torch.ones(4, 6, 6),
     "aten::add.out", "not channels-last like the others"),
])
def test_what_xnnpack_would_compute_differently_stays_with_the_kernels(fn, op, why):
    reasons = _reasons(fn, torch.randn(1, 3, 8, 8))
    assert op in reasons and why in reasons[op], reasons


def test_a_refused_layout_splits_the_delegate_at_a_transpose():
    """conv -> flatten -> linear: the view of the channels-last conv output stays outside
    and the delegate hands it back in NCHW order."""
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)
            self.fc = torch.nn.Linear(4 * 36, 2)

        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).flatten(1))
    program = _export(M().eval(), torch.randn(1, 3, 8, 8))
    assert _kinds(program) == ["DelegateCall", "KernelCall", "DelegateCall"]
