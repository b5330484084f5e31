"""The operators of quantized programs, registered with torch so that eager runs them and
torch.export keeps them as single calls.

Importing this module defines:

- `tailor_quant::linear(Tensor input, Tensor weight, Tensor weight_scales, Tensor? bias,
  int weight_bits, bool dynamic_input) -> Tensor` and its `.out`: the fused
  dequantize -> linear of the quantized Linear layers (weight: int8 or int4 packed in
  blocks of 8 output rows, see weights.py; weight_scales: float [1, N] at 8 bits, an
  empty [0, N] at 4 (the group scales lie in the weight blocks), which gives N; with
  `dynamic_input`, each input row is quantized per token first, see activations.py);
- `tailor_quant::conv2d(Tensor input, Tensor weight, Tensor weight_scales, Tensor? bias,
  int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, float? output_min=None,
  float? output_max=None) -> Tensor` and its `.out`: a dense (one group) Conv2d of 8da8w
  programs, each image quantized to int8 as one token at run time, the weights int8 per
  output channel, packed as linear's over each receptive field in (kernel row, kernel
  column, channel) order with the channels padded with zeros to a multiple of 4
  (conv_weight_rows); its outputs clamped to [output_min, output_max] where given (a
  relu or relu6 after it, fused by exporter/passes/activation_fusion.py);
- `tailor_quant::embedding(Tensor weight, Tensor weight_scales, int weight_bits, int dim,
  Tensor indices) -> Tensor` and its `.out`: an embedding lookup in a table packed as
  tailor_quant::linear's weight (rows [N, dim] in blocks of 8, int8 or int4, with its
  weight_scales), so a tied embedding and output projection share one quantized table;
- `quantized_decomposed::embedding_byte` and `.out`, with ExecuTorch's schema: an
  embedding lookup in an int8 table with one scale per row;
- the `.out` variants torch lacks of the quantized_decomposed ops Tailor has kernels for
  (quantize_per_tensor, dequantize_per_tensor, dequantize_per_channel, choose_qparams),
  as ExecuTorch declares them, so programs that carry those ops (from pt2e, say) lower
  to kernel calls like any other op.

The eager implementations are the reference the self-check and the op tests compare
the kernels with (kernels/quantized/).
"""

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines quantized_decomposed)
import torch.nn.functional as F

from exporter.quantize.activations import fake_quantize_tokens, token_scales
from exporter.quantize.weights import BLOCK_ROWS, dequantize, row_scales, unpack

_LINEAR_ARGS = ("Tensor input, Tensor weight, Tensor weight_scales, Tensor? bias, "
                "int weight_bits, bool dynamic_input")
_CONV_ARGS = ("Tensor input, Tensor weight, Tensor weight_scales, Tensor? bias, "
              "int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, "
              "float? output_min=None, float? output_max=None")
_PACKED_EMBEDDING_ARGS = ("Tensor weight, Tensor weight_scales, int weight_bits, int dim, "
                          "Tensor indices")
_EMBEDDING_ARGS = ("Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, "
                   "int weight_quant_min, int weight_quant_max, Tensor indices")

_tailor = torch.library.Library("tailor_quant", "DEF")
_tailor.define(f"linear({_LINEAR_ARGS}) -> Tensor")
_tailor.define(f"linear.out({_LINEAR_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")
_tailor.define(f"conv2d({_CONV_ARGS}) -> Tensor")
_tailor.define(f"conv2d.out({_CONV_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")
_tailor.define(f"embedding({_PACKED_EMBEDDING_ARGS}) -> Tensor")
_tailor.define(f"embedding.out({_PACKED_EMBEDDING_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")

_decomposed = torch.library.Library("quantized_decomposed", "FRAGMENT")
_decomposed.define(f"embedding_byte({_EMBEDDING_ARGS}) -> Tensor")
_decomposed.define(f"embedding_byte.out({_EMBEDDING_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")
_decomposed.define(
    "quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, "
    "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)")
_decomposed.define(
    "dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, "
    "int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) "
    "-> Tensor(a!)")
_decomposed.define(
    "dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis, "
    "int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)")
_decomposed.define(
    "choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float eps, "
    "ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out) "
    "-> (Tensor(a!), Tensor(b!))")


def linear(input, weight, weight_scales, bias, weight_bits, dynamic_input):
    x = fake_quantize_tokens(input) if dynamic_input else input
    return F.linear(x, dequantize(weight, weight_scales, weight_bits, input.shape[-1]), bias)


def padded_channels(channels: int) -> int:
    """The channels of conv2d's weight rows: a multiple of 4, so each tap is whole words."""
    return -(-channels // 4) * 4


def conv_weight_rows(weight: torch.Tensor) -> torch.Tensor:
    """A Conv2d weight [out, in, kh, kw] -> [out, kh * kw * padded_channels(in)], the
    order of conv2d's patches (zeros for the padding channels)."""
    w = weight.detach().float().permute(0, 2, 3, 1)
    w = F.pad(w, (0, padded_channels(weight.shape[1]) - weight.shape[1]))
    return w.reshape(weight.shape[0], -1)


def conv2d(input, weight, weight_scales, bias, kernel_size, stride, padding, dilation,
           output_min=None, output_max=None):
    """The kernel's arithmetic: the integer sums exactly (float64 holds them), then
    sum * weight scale * image scale + bias in float32, so both round alike and a layer's
    outputs quantize to the next layer's integers identically."""
    n, c = input.shape[:2]
    kh, kw = kernel_size
    out_channels = weight_scales.shape[1]
    x = input.float().reshape(n, -1)
    scale = token_scales(x)
    xq = torch.clamp(torch.round(x * (1.0 / scale)), -127, 127).reshape(input.shape)
    w = unpack(weight, 8, out_channels, kh * kw * padded_channels(c))
    w = w.reshape(-1, kh, kw, padded_channels(c))[..., :c].permute(0, 3, 1, 2)
    sums = F.conv2d(xq.double(), w.double(), None, stride, padding, dilation).float()
    out = sums * weight_scales.reshape(1, -1, 1, 1) * scale.reshape(-1, 1, 1, 1)
    out = out if bias is None else out + bias.reshape(1, -1, 1, 1)
    if output_min is None and output_max is None:
        return out
    return torch.clamp(out, output_min, output_max)


def embedding(weight, weight_scales, weight_bits, dim, indices):
    """Rows `indices` of a table packed as a linear's weight: each index's block of 8
    rows unpacked, its row taken and scaled (per group of its inputs)."""
    flat = indices.reshape(-1).long()
    n = weight_scales.shape[1]
    if flat.numel() and not 0 <= int(flat.min()) <= int(flat.max()) < n:
        raise IndexError(f"tailor_quant::embedding: an index is out of range for {n} rows")
    pick = (torch.arange(flat.numel()), flat % BLOCK_ROWS)
    blocks = weight[flat // BLOCK_ROWS]
    rows = flat.numel() * BLOCK_ROWS
    q = unpack(blocks, weight_bits, rows, dim).reshape(flat.numel(), BLOCK_ROWS, dim)[pick]
    if weight_bits == 8:
        scales = weight_scales[0, flat].float().unsqueeze(1)
    else:
        scales = row_scales(blocks, weight_scales.new_empty(0, rows), 4, dim)
        scales = scales.reshape(flat.numel(), BLOCK_ROWS, dim)[pick]
    return (q.float() * scales).reshape(*indices.shape, dim)


def embedding_byte(weight, weight_scales, weight_zero_points, quant_min, quant_max, indices):
    scales = weight_scales.reshape(weight.shape[0], -1).float()
    table = weight.float()
    if weight_zero_points is not None:
        table = table - weight_zero_points.reshape(weight.shape[0], -1).float()
    return F.embedding(indices, table * scales)


def _linear_fake(input, weight, weight_scales, bias, weight_bits, dynamic_input):
    return input.new_empty((*input.shape[:-1], weight_scales.shape[1]))


def _conv2d_fake(input, weight, weight_scales, bias, kernel_size, stride, padding, dilation,
                 output_min=None, output_max=None):
    size = [(input.shape[2 + d] + 2 * padding[d] - dilation[d] * (kernel_size[d] - 1) - 1)
            // stride[d] + 1 for d in range(2)]
    return input.new_empty((input.shape[0], weight_scales.shape[1], *size))


def _packed_embedding_fake(weight, weight_scales, weight_bits, dim, indices):
    return weight_scales.new_empty((*indices.shape, dim))


def _embedding_fake(weight, weight_scales, weight_zero_points, quant_min, quant_max, indices):
    return weight_scales.new_empty((*indices.shape, weight.shape[1]), dtype=torch.float32)


def _out(functional):
    """The .out implementation of a functional reference: compute, then copy into out."""
    def run(*args, out):
        result = functional(*args)
        out.resize_(result.shape).copy_(result)
        return out
    return run


_tailor.impl("linear", linear, "CompositeExplicitAutograd")
_tailor.impl("linear.out", _out(linear), "CompositeExplicitAutograd")
_tailor.impl("conv2d", conv2d, "CompositeExplicitAutograd")
_tailor.impl("conv2d.out", _out(conv2d), "CompositeExplicitAutograd")
_tailor.impl("embedding", embedding, "CompositeExplicitAutograd")
_tailor.impl("embedding.out", _out(embedding), "CompositeExplicitAutograd")
_decomposed.impl("embedding_byte", embedding_byte, "CompositeExplicitAutograd")
_decomposed.impl("embedding_byte.out", _out(embedding_byte), "CompositeExplicitAutograd")
torch.library.register_fake("tailor_quant::linear", _linear_fake, lib=_tailor)
torch.library.register_fake("tailor_quant::conv2d", _conv2d_fake, lib=_tailor)
torch.library.register_fake("tailor_quant::embedding", _packed_embedding_fake, lib=_tailor)
torch.library.register_fake("quantized_decomposed::embedding_byte", _embedding_fake,
                            lib=_decomposed)
