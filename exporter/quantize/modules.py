"""The modules quantize_model() puts in place of nn.Linear and nn.Embedding (and of an
nn.Embedding whose table is a Linear's weight: TiedEmbedding reads that Linear's).

Each holds its quantized weight and scales as buffers (so export stores them, packed, in
the constant segment) and calls one operator of ops.py, whose eager implementation is
the reference: running the quantized model in eager is what the self-check compares the
runtime with.
"""

import torch
from torch import nn

from exporter.quantize import ops  # noqa: F401  (registers the operators called below)
from exporter.quantize.ops import conv_weight_rows
from exporter.quantize.scheme import QuantizeSpec
from exporter.quantize.weights import (pack_int4, pack_int8, quantize_int4_groups,
                                       quantize_int8_rows)


class QuantizedLinear(nn.Module):
    def __init__(self, linear: nn.Linear, spec: QuantizeSpec):
        super().__init__()
        if spec.weight_bits == 4:
            # The scales go into the weight blocks; weight_scales [0, N] only gives N.
            q, scales = quantize_int4_groups(linear.weight, spec.group_size)
            weight = pack_int4(q, scales)
            scales = torch.empty(linear.out_features, 0)
        else:
            q, scales = quantize_int8_rows(linear.weight)
            weight = pack_int8(q)
        self.register_buffer("weight", weight)
        self.register_buffer("weight_scales", scales.t().contiguous())   # [1 or 0, N]
        self.register_buffer("bias", None if linear.bias is None
                             else linear.bias.detach().float().clone())
        self.weight_bits = spec.weight_bits
        self.dynamic_input = spec.dynamic_input
        self.in_features, self.out_features = linear.in_features, linear.out_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.tailor_quant.linear(x, self.weight, self.weight_scales, self.bias,
                                             self.weight_bits, self.dynamic_input)


def pointwise(conv: nn.Module) -> bool:
    """Whether `conv` is a 1x1 Conv2d that is a linear map of each pixel's channels: one
    group, no padding, no dilation (any stride: it only picks the pixels)."""
    return (type(conv) is nn.Conv2d and conv.kernel_size == (1, 1) and conv.groups == 1
            and conv.padding in ((0, 0), "valid") and conv.dilation == (1, 1))


class QuantizedPointwiseConv(nn.Module):
    """A 1x1 convolution as the quantized linear over each pixel's channels (the GEMM it
    is): NCHW to NHWC, tailor_quant::linear with the [out, in] weight quantized per output
    channel (or per group, 8da4w) and, in the 8da schemes, each pixel's channels quantized
    to int8 at run time, then back to NCHW. A stride first takes every stride-th pixel."""

    def __init__(self, conv: nn.Conv2d, spec: QuantizeSpec):
        super().__init__()
        linear = nn.Linear(conv.in_channels, conv.out_channels, bias=conv.bias is not None)
        with torch.no_grad():
            linear.weight.copy_(conv.weight.reshape(conv.out_channels, conv.in_channels))
            if conv.bias is not None:
                linear.bias.copy_(conv.bias)
        self.linear = QuantizedLinear(linear, spec)
        self.stride = tuple(conv.stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.stride != (1, 1):
            x = x[:, :, ::self.stride[0], ::self.stride[1]]
        return self.linear(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


def dense(conv: nn.Module) -> bool:
    """Whether `conv` is a Conv2d of one group with zero padding given as numbers (3x3
    and any other window, stride and dilation): one linear map of each output pixel's
    receptive field. Depthwise and grouped ones are not."""
    return (type(conv) is nn.Conv2d and conv.groups == 1 and conv.padding_mode == "zeros"
            and not isinstance(conv.padding, str))


class QuantizedConv(nn.Module):
    """A dense convolution as the quantized linear over each output pixel's receptive
    field: the [out, in*kh*kw] filters quantized per output channel (or per group), and
    in the 8da schemes each patch quantized to int8 at run time (its own scale, as a
    token). The patches are kh*kw strided slices of the zero-padded input stacked along
    the channels (ops every runtime has, no im2col kernel), so they take kh*kw times the
    input's memory, in planned scratch."""

    def __init__(self, conv: nn.Conv2d, spec: QuantizeSpec):
        super().__init__()
        out_channels, in_channels, kh, kw = conv.weight.shape
        linear = nn.Linear(in_channels * kh * kw, out_channels, bias=conv.bias is not None)
        with torch.no_grad():
            # Patch features run over (channel, row, column), the filters' own order.
            linear.weight.copy_(conv.weight.reshape(out_channels, -1))
            if conv.bias is not None:
                linear.bias.copy_(conv.bias)
        self.linear = QuantizedLinear(linear, spec)
        self.window, self.stride = (kh, kw), tuple(conv.stride)
        self.padding, self.dilation = tuple(conv.padding), tuple(conv.dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        (kh, kw), (sh, sw), (dh, dw) = self.window, self.stride, self.dilation
        ph, pw = self.padding
        if ph or pw:
            x = torch.nn.functional.pad(x, (pw, pw, ph, ph))
        n, c, h, w = x.shape
        oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (w - dw * (kw - 1) - 1) // sw + 1
        taps = [x[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                  j * dw:j * dw + sw * (ow - 1) + 1:sw] for i in range(kh) for j in range(kw)]
        patches = torch.stack(taps, dim=2).permute(0, 3, 4, 1, 2)   # [n, oh, ow, c, kh*kw]
        return self.linear(patches.reshape(n, oh, ow, c * kh * kw)).permute(0, 3, 1, 2)


class QuantizedConv2d(nn.Module):
    """8da8w: a dense convolution (pointwise or not) as one tailor_quant::conv2d, each
    image quantized to int8 at run time (one scale) and its patches multiplied by the
    filters, int8 per output channel. Per image rather than per patch, as QuantizedConv
    does: a patch is then a copy of the quantized input's bytes, not a row to quantize."""

    def __init__(self, conv: nn.Conv2d):
        super().__init__()
        q, scales = quantize_int8_rows(conv_weight_rows(conv.weight))
        self.register_buffer("weight", pack_int8(q))
        self.register_buffer("weight_scales", scales.t().contiguous())   # [1, out]
        self.register_buffer("bias", None if conv.bias is None
                             else conv.bias.detach().float().clone())
        self.window, self.stride = list(conv.kernel_size), list(conv.stride)
        self.padding, self.dilation = list(conv.padding), list(conv.dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.tailor_quant.conv2d(x, self.weight, self.weight_scales, self.bias,
                                             self.window, self.stride, self.padding,
                                             self.dilation)


class QuantizedEmbedding(nn.Module):
    def __init__(self, embedding: nn.Embedding):
        super().__init__()
        weight, scales = quantize_int8_rows(embedding.weight)
        self.register_buffer("weight", weight)
        self.register_buffer("weight_scales", scales.reshape(-1))

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        return torch.ops.quantized_decomposed.embedding_byte(
            self.weight, self.weight_scales, None, -127, 127, indices)



class TiedEmbedding(nn.Module):
    """An embedding whose table is a quantized Linear's weight (tied embeddings and
    output projection, [vocab, hidden]): it registers the Linear's own packed weight and
    scales, so the program stores the table once, read by the linear kernel and by the
    lookup of tailor_quant::embedding."""

    def __init__(self, linear: QuantizedLinear):
        super().__init__()
        self.register_buffer("weight", linear.weight)
        self.register_buffer("weight_scales", linear.weight_scales)
        self.weight_bits, self.dim = linear.weight_bits, linear.in_features

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        return torch.ops.tailor_quant.embedding(self.weight, self.weight_scales,
                                                self.weight_bits, self.dim, indices)
