"""The export-time passes (exporter/passes/): each rewrites what it should, leaves alone
what it must, and the rewritten program still computes what eager torch computes (run
by torch itself through ExportedProgram.module())."""

import pytest
import torch
from torch import nn

from exporter.export import export
from exporter.passes import simplify

aten = torch.ops.aten


def _simplified(module, *inputs):
    """(the ExportedProgram after the passes, their report); checks it against eager."""
    with torch.no_grad():
        ep = torch.export.export(module.eval(), inputs).run_decompositions()
        report = simplify(ep)
        got, want = ep.module()(*inputs), module(*inputs)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    return ep, report


def _targets(ep) -> list:
    return [n.target for n in ep.graph.nodes if n.op == "call_function"]


def _with_statistics(bn: nn.modules.batchnorm._BatchNorm, seed: int):
    """Non-trivial running statistics and affine parameters, as a trained model has."""
    g = torch.Generator().manual_seed(seed)
    bn.running_mean.copy_(torch.rand(bn.num_features, generator=g) * 2 - 1)
    bn.running_var.copy_(torch.rand(bn.num_features, generator=g) + 0.5)
    if bn.affine:
        bn.weight.data.copy_(torch.rand(bn.num_features, generator=g) + 0.5)
        bn.bias.data.copy_(torch.rand(bn.num_features, generator=g) - 0.5)
    return bn


class ConvBn(nn.Module):
    def __init__(self, conv, bn):
        super().__init__()
        self.conv, self.bn = conv, _with_statistics(bn, 0)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


@pytest.mark.parametrize("conv,bn,shape", [
    (nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), (2, 3, 6, 6)),
    (nn.Conv2d(8, 8, 3, groups=8, bias=False), nn.BatchNorm2d(8), (1, 8, 5, 5)),
    (nn.Conv1d(4, 6, 3), nn.BatchNorm1d(6, affine=False), (2, 4, 9)),
    (nn.Linear(5, 7), nn.BatchNorm1d(7), (3, 5)),
], ids=["conv2d", "depthwise_no_bias", "conv1d_no_affine", "linear"])
def test_batch_norm_folds_into_the_layer_before_it(conv, bn, shape):
    ep, report = _simplified(ConvBn(conv, bn), torch.randn(shape))
    assert report.batch_norms == 1
    assert aten._native_batch_norm_legit_no_training.default not in _targets(ep)


def test_batch_norm_stays_when_the_convolution_output_is_read_elsewhere():
    class Branch(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn = nn.Conv2d(2, 4, 1), _with_statistics(nn.BatchNorm2d(4), 1)

        def forward(self, x):
            y = self.conv(x)
            return self.bn(y) + y

    ep, report = _simplified(Branch(), torch.randn(1, 2, 3, 3))
    assert report.batch_norms == 0
    assert aten._native_batch_norm_legit_no_training.default in _targets(ep)


def test_numbers_in_tensor_positions_become_constants_of_the_promoted_dtype():
    class Numbers(nn.Module):
        def forward(self, x, i, mask):
            return 1 - x, 2 - i, 1.5 - i, 1 - mask.int(), torch.where(mask, x, 0.25)

    x, i = torch.randn(2, 3), torch.arange(6, dtype=torch.int32).reshape(2, 3)
    ep, report = _simplified(Numbers(), x, i, x > 0)
    assert report.numbers >= 3
    # The program builds: 1 - x is a sub of a 0-d constant.
    program = export(Numbers(), (x, i, x > 0))
    assert "aten::sub.out" in program.operators


def test_no_op_copies_are_removed_and_real_ones_stay():
    class Copies(nn.Module):
        def forward(self, x, square):
            a = x[:, :].clone().to(torch.float32).reshape(2, 3)      # all no-ops
            b = square.permute(1, 0) + square.permute(0, 1)          # one real transpose
            return a * 2, b, x.clone()                               # a returned clone stays

    ep, report = _simplified(Copies(), torch.randn(2, 3), torch.randn(3, 3))
    targets = _targets(ep)
    assert report.noops >= 4
    assert targets.count(aten.permute.default) == 1
    assert targets.count(aten.clone.default) == 1


def test_masks_built_at_a_static_length_fold_into_constants():
    class Causal(nn.Module):
        def forward(self, x):                                        # x: [T, T]
            t = x.shape[0]
            mask = torch.ones(t, t, dtype=torch.bool).tril()
            return x.masked_fill(~mask, float("-inf")).softmax(-1)

    ep, report = _simplified(Causal(), torch.randn(8, 8))
    assert report.folded
    assert aten.arange.start_step not in _targets(ep) and aten.full.default not in _targets(ep)


def test_as_strided_to_channels_last_strides_of_the_same_shape_is_removed():
    class Pool(nn.Module):
        def forward(self, x):                       # what ConvNeXt's avgpool exports to
            y = x.mean((-1, -2), keepdim=True)
            return torch.as_strided(y, (1, 6, 1, 1), (6, 1, 6, 6)).flatten(1) * 2, \
                torch.as_strided(x, (2, 2), (1, 2)) + 1      # a real transpose stays

    ep, report = _simplified(Pool(), torch.randn(1, 6, 3, 3))
    assert _targets(ep).count(aten.as_strided.default) == 1


class QuantizedConvActivations(nn.Module):
    """Quantized convolutions followed by each clamp-shaped activation, and one whose
    output is also read past its relu (so it stays a separate call)."""

    def __init__(self):
        super().__init__()
        from exporter.quantize.modules import QuantizedConv2d
        torch.manual_seed(0)
        self.convs = nn.ModuleList(QuantizedConv2d(nn.Conv2d(3, 3, 3, padding=1))
                                   for _ in range(5))

    def forward(self, x):
        a = torch.relu(self.convs[0](x))
        b = nn.functional.relu6(self.convs[1](a))
        c = nn.functional.hardtanh(self.convs[2](b), -0.5, 0.25)
        d = torch.clamp(self.convs[3](c), max=0.1)
        e = self.convs[4](d)
        return torch.relu(e) + e


def test_clamp_shaped_activations_fuse_into_the_quantized_convolution_before_them():
    ep, report = _simplified(QuantizedConvActivations(), torch.randn(1, 3, 6, 6))
    assert report.activations == 4
    convs = [n for n in ep.graph.nodes if n.target == torch.ops.tailor_quant.conv2d.default]
    assert [tuple(n.args[8:]) for n in convs] == [
        (0.0, None), (0.0, 6.0), (-0.5, 0.25), (None, 0.1), ()]
    assert _targets(ep).count(aten.relu.default) == 1       # the one read beside its input
    assert aten.hardtanh.default not in _targets(ep) and aten.clamp.default not in _targets(ep)


def test_an_activation_the_program_returns_is_not_fused():
    class Returned(nn.Module):      # the program's output names name the relu
        def __init__(self):
            super().__init__()
            from exporter.quantize.modules import QuantizedConv2d
            self.conv = QuantizedConv2d(nn.Conv2d(3, 4, 1))

        def forward(self, x):
            return torch.relu(self.conv(x))

    ep, report = _simplified(Returned(), torch.randn(1, 3, 4, 4))
    assert report.activations == 0
    assert aten.relu.default in _targets(ep)
