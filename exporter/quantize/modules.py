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
from exporter.quantize.scheme import QuantizeSpec
from exporter.quantize.weights import (pack_int4, pack_int8, quantize_int4_groups,
                                       quantize_int8_rows)


class QuantizedLinear(nn.Module):
    def __init__(self, linear: nn.Linear, spec: QuantizeSpec):
        super().__init__()
        if spec.weight_bits == 4:
            q, scales = quantize_int4_groups(linear.weight, spec.group_size)
            weight = pack_int4(q)
        else:
            q, scales = quantize_int8_rows(linear.weight)
            weight = pack_int8(q)
        self.register_buffer("weight", weight)
        self.register_buffer("weight_scales", scales.t().contiguous())   # [G, N]
        self.register_buffer("bias", None if linear.bias is None
                             else linear.bias.detach().float().clone())
        self.weight_bits = spec.weight_bits
        self.dynamic_input = spec.dynamic_input
        self.in_features, self.out_features = linear.in_features, linear.out_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.tailor_quant.linear(x, self.weight, self.weight_scales, self.bias,
                                             self.weight_bits, self.dynamic_input)


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
