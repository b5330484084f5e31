"""Quantization at export (exporter/quantize/): the `quantize:` setting and its errors, the
weight packing, which layers a scheme takes, and what a quantized program holds."""

import textwrap

import pytest
import torch
from torch import nn

from codegen.errors import ManifestError
from exporter.errors import ExportError
from exporter.export import export
from exporter.manifest import parse_manifest
from exporter.quantize.activations import fake_quantize_tokens, token_scales
from exporter.quantize.apply import quantize_model
from exporter.quantize.modules import QuantizedConv2d
from exporter.quantize.scheme import QuantizeSpec, parse_quantize
from exporter.quantize.weights import (dequantize, pack_int4, pack_int8, quantize_int4_groups,
                                       quantize_int8_rows, unpack)
from codegen.yaml_io import parse_yaml


def _manifest(quantize: str) -> dict:
    return parse_yaml(textwrap.dedent(f"""\
        description: a model
        factory: examples.mlp.model:make_mlp
        quantize: {quantize}
        """))


def test_the_manifest_takes_a_scheme_name_or_a_mapping():
    assert parse_manifest("m.yaml", _manifest("8da4w")).quantize == QuantizeSpec("8da4w")
    spec = parse_manifest("m.yaml", _manifest("{scheme: 8da4w, group_size: 64}")).quantize
    assert spec == QuantizeSpec("8da4w", 64) and spec.weight_bits == 4 and spec.dynamic_input
    assert parse_manifest("m.yaml", _manifest("int8-weight")).quantize.dynamic_input is False
    assert parse_manifest("m.yaml", _manifest("{scheme: 8da8w, embeddings: false}")
                          ).quantize.embeddings is False
    # Every convolution by default in 8da8w (its quantized convolution is faster than
    # float), the 1x1 ones in the other schemes.
    assert parse_manifest("m.yaml", _manifest("8da8w")).quantize.convolutions == "all"
    assert QuantizeSpec("8da8w").convolutions == "all"
    assert parse_manifest("m.yaml", _manifest("8da4w")).quantize.convolutions == "1x1"
    assert parse_manifest("m.yaml", _manifest("{scheme: 8da8w, convolutions: 1x1}")
                          ).quantize.convolutions == "1x1"
    assert parse_manifest("m.yaml", _manifest("{scheme: 8da4w, convolutions: all}")
                          ).quantize.convolutions == "all"


@pytest.mark.parametrize("value, says", [
    ("int4", "unknown scheme 'int4'; use one of int8-weight, 8da8w, 8da4w"),
    ("{scheme: 8da4w, group_size: 48}", "group_size 48 must be a positive multiple of 32"),
    ("{scheme: 8da4w, group_size: 0}", "group_size 0 must be a positive multiple of 32"),
    ("{scheme: 8da8w, group_size: 32}", "group_size applies to 8da4w only"),
    ("{scheme: 8da4w, groupsize: 32}", "unknown key 'groupsize'; allowed keys: scheme, "
                                       "group_size, embeddings, convolutions"),
    ("{scheme: 8da8w, convolutions: 3x3}", "convolutions must be one of 1x1, all, not "
                                           "'3x3'"),
    ("[8da4w]", "quantize must be a string or a mapping"),
])
def test_a_bad_setting_names_the_file_the_entry_and_the_fix(value, says):
    with pytest.raises(ManifestError) as error:
        parse_manifest("manifests/models/m.yaml", _manifest(value))
    assert str(error.value).startswith("manifests/models/m.yaml: quantize")
    assert says in str(error.value)


def test_export_rejects_a_bad_scheme_with_the_argument_named(mlp):
    with pytest.raises(ExportError, match=r"^quantize: unknown scheme 'int3'"):
        export(*mlp, quantize="int3")


def test_weights_pack_in_blocks_of_8_rows_and_unpack_back():
    gen = torch.Generator().manual_seed(0)
    q8 = torch.randint(-127, 128, (11, 37), generator=gen).to(torch.int8)
    packed = pack_int8(q8)   # 2 blocks of 8 rows (the last padded), 40 inputs by 4
    assert packed.dtype == torch.int8 and packed.shape == (2, 10 * 32)
    # Per 4 inputs, 32 bytes: row 0's inputs 0..3, then row 1's, ...
    assert packed[0, :8].tolist() == q8[0, :4].tolist() + q8[1, :4].tolist()
    assert torch.equal(unpack(packed, 8, 11, 37), q8)
    q4 = torch.randint(-8, 8, (11, 64), generator=gen).to(torch.int8)
    s4 = torch.rand(11, 2, generator=gen)
    packed = pack_int4(q4, s4)   # per 8 inputs, 32 bytes: inputs 0..3 low nibbles, 4..7 high
    assert packed.dtype == torch.uint8 and packed.shape == (2, 2 * (32 * 4 + 32))
    assert int(packed[0, 4]) == (int(q4[1, 0]) + 8) | ((int(q4[1, 4]) + 8) << 4)
    # Each group's 128 bytes of weights, then its 8 rows' scales: one stream per block.
    assert int(packed[0, 160 + 4]) == (int(q4[1, 32]) + 8) | ((int(q4[1, 36]) + 8) << 4)
    group_scales = packed[:, 128:160].contiguous().view(torch.float32)   # group 0's
    assert torch.equal(group_scales[0], s4[:8, 0]) and torch.equal(group_scales[1, :3], s4[8:, 0])
    assert group_scales[1, 3:].eq(0).all()                                # padding rows
    assert torch.equal(packed[1, 288:320].contiguous().view(torch.float32)[:3], s4[8:, 1])
    assert torch.equal(unpack(packed, 4, 11, 64), q4)


def test_weights_quantize_within_half_a_step():
    w = torch.randn(6, 64, generator=torch.Generator().manual_seed(1))
    q8, s8 = quantize_int8_rows(w)
    assert q8.dtype == torch.int8 and s8.shape == (6, 1)
    assert (q8.float() * s8 - w).abs().le(s8 / 2 + 1e-7).all()
    q4, s4 = quantize_int4_groups(w, 32)
    assert s4.shape == (6, 2) and q4.min() >= -8 and q4.max() <= 7
    back = dequantize(pack_int4(q4, s4), torch.empty(0, 6), 4, 64)
    assert (back - w).abs().le(s4.repeat_interleave(32, dim=1) / 2 + 1e-7).all()


def test_activations_quantize_per_token_within_half_a_step():
    x = torch.randn(4, 5, 40, generator=torch.Generator().manual_seed(2)) * 3
    scale = token_scales(x)
    assert scale.shape == (4, 5, 1)
    assert (fake_quantize_tokens(x) - x).abs().le(scale / 2 + 1e-6).all()


def test_8da4w_keeps_a_layer_whose_inputs_do_not_fill_whole_groups():
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
    quantized, report = quantize_model(model, QuantizeSpec("8da4w"))
    assert report.linears == ("2",)
    assert report.kept == (("0", "in_features 16 is not a multiple of group_size 32"),)
    assert type(quantized[0]) is nn.Linear and type(model[2]) is nn.Linear  # a copy


def test_attention_projections_stay_float():
    model = nn.Sequential(nn.Linear(32, 32))
    model.attn = nn.MultiheadAttention(32, 4)  # reads out_proj.weight itself
    _, report = quantize_model(model, QuantizeSpec("8da8w"))
    assert report.linears == ("0",)


class _Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.depthwise = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.expand = nn.Conv2d(16, 64, 1)
        self.down = nn.Conv2d(64, 32, 1, stride=2)
        self.mix = nn.Conv2d(32, 32, 3, stride=2, padding=1)

    def forward(self, x):
        x = torch.relu(self.depthwise(torch.relu(self.stem(x))))
        return self.mix(torch.relu(self.down(torch.relu(self.expand(x)))))


@pytest.mark.parametrize("scheme", ["int8-weight", "8da4w"])
def test_a_1x1_convolution_is_the_quantized_linear_over_each_pixel(scheme):
    torch.manual_seed(0)
    model = _Cnn().eval()
    quantized, report = quantize_model(model, parse_quantize(scheme))
    # 8da4w: 16 input channels do not fill a group of 32; the 3x3 ones stay float unless
    # `convolutions: all`.
    assert report.convolutions == (("down",) if scheme == "8da4w" else ("expand", "down"))
    assert report.float_convolutions == 3 and type(quantized.mix) is nn.Conv2d
    _, every = quantize_model(model, parse_quantize({"scheme": scheme, "convolutions": "all"}))
    # The stem's 3 x 3x3 inputs do not fill a group of 32 either.
    assert every.convolutions == (("down", "mix") if scheme == "8da4w"
                                  else ("stem", "expand", "down", "mix"))
    assert every.float_convolutions == 1
    x = torch.randn(2, 64, 9, 9)
    q = quantized.down.linear
    # The same math spelled as a convolution: the dequantized [out, in, 1, 1] filters over
    # every second pixel, each pixel's channels fake-quantized per token in the 8da schemes.
    filters = dequantize(q.weight, q.weight_scales, q.weight_bits, 64).reshape(32, 64, 1, 1)
    pixels = x[:, :, ::2, ::2]
    if q.dynamic_input:
        pixels = fake_quantize_tokens(pixels.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
    want = torch.nn.functional.conv2d(pixels, filters, model.down.bias)
    with torch.no_grad():
        torch.testing.assert_close(quantized.down(x), want, atol=1e-5, rtol=1e-5)
        # Near the float layer (outputs about 1): 8 bits within 0.05, 4 bits within 0.3.
        assert (quantized.down(x) - model.down(x)).abs().max() < (0.3 if q.weight_bits == 4
                                                                   else 0.05)


@pytest.mark.parametrize("scheme", ["int8-weight", "8da4w"])
@pytest.mark.parametrize("stride, padding, dilation", [(1, 1, 1), (2, 1, 1), (2, 2, 2),
                                                       (1, 0, 1)])
def test_a_3x3_convolution_is_the_quantized_linear_over_each_receptive_field(
        scheme, stride, padding, dilation):
    torch.manual_seed(0)
    conv = nn.Conv2d(32, 24, 3, stride=stride, padding=padding, dilation=dilation).eval()
    quantized, report = quantize_model(nn.Sequential(conv), parse_quantize(
        {"scheme": scheme, "convolutions": "all"}))
    assert report.convolutions == ("0",) and report.float_convolutions == 0
    q = quantized[0].linear
    filters = dequantize(q.weight, q.weight_scales, q.weight_bits, 32 * 9).reshape(24, 32, 3, 3)
    x = torch.randn(2, 32, 11, 10)
    geometry = dict(stride=stride, padding=padding, dilation=dilation)
    with torch.no_grad():
        got = quantized(x)
        if q.dynamic_input:
            # Each receptive field (torch's unfold: channel-major, as the filters) is
            # fake-quantized as one token, then multiplied by the dequantized filters.
            patches = torch.nn.functional.unfold(x, 3, **geometry).transpose(1, 2)
            rows = fake_quantize_tokens(patches) @ filters.reshape(24, -1).t() + conv.bias
            want = rows.transpose(1, 2).reshape(got.shape)
        else:
            want = torch.nn.functional.conv2d(x, filters, conv.bias, **geometry)
        torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
        # Near the float convolution (outputs about 1): 8 bits within 0.05, 4 bits 0.3.
        assert (got - conv(x)).abs().max() < (0.3 if q.weight_bits == 4 else 0.05)


@pytest.mark.parametrize("channels, window, stride, padding, dilation",
                         [(32, 3, 1, 1, 1), (32, 3, 2, 1, 1), (30, 3, 2, 2, 2), (3, 3, 1, 0, 1),
                          (64, 1, 1, 0, 1), (64, 1, 2, 0, 1)])
def test_8da8w_convolutions_are_one_quantized_convolution(channels, window, stride, padding,
                                                          dilation):
    torch.manual_seed(0)
    conv = nn.Conv2d(channels, 24, window, stride=stride, padding=padding,
                     dilation=dilation).eval()
    quantized, report = quantize_model(nn.Sequential(conv), parse_quantize(
        {"scheme": "8da8w", "convolutions": "all"}))
    assert report.convolutions == ("0",) and type(quantized[0]) is QuantizedConv2d
    q = quantized[0]
    # The weights: int8 per output channel over (window row, window column, channels
    # padded to a multiple of 4).
    cp = -(-channels // 4) * 4
    rows = dequantize(q.weight, q.weight_scales, 8, window * window * cp)
    filters = rows.reshape(24, window, window, cp)[..., :channels].permute(0, 3, 1, 2)
    assert (rows.reshape(24, window, window, cp)[..., channels:] == 0).all()
    x = torch.randn(2, channels, 11, 10)
    with torch.no_grad():
        got = quantized(x)
        # Each image fake-quantized as one token, then the dequantized filters.
        images = fake_quantize_tokens(x.reshape(2, -1)).reshape(x.shape)
        want = torch.nn.functional.conv2d(images, filters, conv.bias, stride, padding, dilation)
        torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
        # Near the float convolution (outputs about 1): within 0.05.
        assert (got - conv(x)).abs().max() < 0.05


def test_depthwise_and_grouped_convolutions_stay_float():
    model = nn.Sequential(nn.Conv2d(32, 32, 3, groups=32), nn.Conv2d(32, 32, 3, groups=2),
                          nn.Conv2d(32, 32, 3, padding="same"))
    quantized, report = quantize_model(model, parse_quantize({"scheme": "8da8w",
                                                              "convolutions": "all"}))
    assert report.convolutions == () and report.float_convolutions == 3
    assert "3 other convolution(s) kept in float" in report.summary()


def test_a_quantized_cnn_program_calls_the_quantized_convolution():
    torch.manual_seed(0)
    program = export(_Cnn().eval(), (torch.randn(1, 3, 8, 8),),
                     quantize={"scheme": "8da8w", "convolutions": "all"})
    assert "tailor_quant::linear.out" not in program.operators
    # The depthwise convolution is the one left.
    assert "aten::convolution.out" in program.operators
    assert sum(c.op == "tailor_quant::conv2d.out" for c in program.kernel_calls()) == 4
    assert sum(c.op == "aten::convolution.out" for c in program.kernel_calls()) == 1
    assert "4 convolution(s)" in program.quantization.summary()


@pytest.mark.parametrize("scheme, weight_dtype", [("int8-weight", "Char"), ("8da8w", "Char"),
                                                  ("8da4w", "Byte")])
def test_a_quantized_program_calls_the_fused_linear_on_packed_weights(scheme, weight_dtype):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 96), nn.ReLU(), nn.Linear(96, 8)).eval()
    x = torch.randn(3, 64)
    fp32 = export(model, (x,))
    program = export(model, (x,), quantize=scheme)
    assert program.operators == ["tailor_quant::linear.out", "aten::relu.out"]
    keys = {c.key.split("|")[1] for c in program.kernel_calls()
            if c.op == "tailor_quant::linear.out"}
    assert keys == {f"{weight_dtype};0,1"}
    # int8: 1/4 of the float bytes plus a scale per row; int4: 1/8 plus one per 32.
    assert len(program.segment) < len(fp32.segment) * (0.3 if weight_dtype == "Char" else 0.2)
    report = program.quantization
    assert report.linears == ("0", "2") and 0 < report.max_error < 0.1
    assert "quantized 2 linear layer(s)" in report.summary()


def test_embeddings_become_int8_tables():
    model = nn.Sequential(nn.Embedding(50, 32), nn.Linear(32, 4)).eval()
    idx = torch.tensor([[1, 7, 49]])
    program = export(model, (idx,), quantize="8da4w")
    assert "quantized_decomposed::embedding_byte.out" in program.operators
    assert program.quantization.embeddings == ("0",)
    no_tables = export(model, (idx,), quantize={"scheme": "8da4w", "embeddings": False})
    assert "aten::embedding.out" in no_tables.operators


class _Tied(nn.Module):
    """An embedding whose table is the output projection's weight (most LLMs)."""

    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.embed, self.head = nn.Embedding(vocab, dim), nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, idx):
        return self.head(self.embed(idx))


@pytest.mark.parametrize("scheme", ["8da4w", "8da8w", "int8-weight"])
def test_a_tied_embedding_reads_the_projections_int8_table(scheme):
    """One int8 table (per-row scales, the linear's packed layout) read by the lookup and
    the projection; 8da4w too (whose other layers stay 4-bit), even at 48 inputs."""
    model = _Tied(50, 48).eval()
    quantized, report = quantize_model(model, parse_quantize(scheme))
    assert quantized.embed.weight is quantized.head.weight
    head = quantized.head
    assert head.weight_bits == 8 and head.dynamic_input == (scheme != "int8-weight")
    assert report.embeddings == ("embed",) and report.linears == ("head",)
    assert report.shared == (("embed", "head"),)
    assert "one int8 table for embed and head" in report.summary()
    idx = torch.tensor([[0, 7, 8, 49, 33]])
    table = dequantize(head.weight, head.weight_scales, 8, 48)
    assert torch.equal(quantized.embed(idx), table[idx])
    program = export(model, (idx,), quantize=scheme)
    assert "tailor_quant::embedding.out" in program.operators
    assert len(program.segment) < head.weight.numel() * 1.5   # the table once (+ scales)


def test_embeddings_false_keeps_a_tied_table_float_beside_the_projection():
    quantized, report = quantize_model(_Tied(50, 64).eval(),
                                       parse_quantize({"scheme": "8da4w", "embeddings": False}))
    assert type(quantized.embed) is nn.Embedding and quantized.head.weight_bits == 4
    assert report.shared == () and report.embeddings == ()
