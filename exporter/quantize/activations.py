"""Per-token dynamic quantization of activations: what the 8da schemes do to each input row
at run time, in float32 steps that the C++ kernels repeat exactly
(kernels/quantized/util/quantize_row.h), so eager and runtime pick the same integers:

    lo = min(min(row), 0), hi = max(max(row), 0)
    scale = (hi - lo) / 255, or 1 if that is 0
    zero_point = clamp(round(-128 - lo / scale), -128, 127)
    q = clamp(round(x * (1 / scale)) + zero_point, -128, 127)

(asymmetric int8 per token, as torchao's 8da schemes; round is half to even on both sides).
"""

import torch


def token_qparams(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """float [..., K] -> (scale float [..., 1], zero point float [..., 1])."""
    lo = torch.clamp(x.amin(dim=-1, keepdim=True), max=0.0)
    hi = torch.clamp(x.amax(dim=-1, keepdim=True), min=0.0)
    scale = (hi - lo) / torch.tensor(255.0, dtype=torch.float32)
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    zero_point = torch.clamp(torch.round(-128.0 - lo / scale), -128, 127)
    return scale, zero_point


def fake_quantize_tokens(x: torch.Tensor) -> torch.Tensor:
    """float [..., K] -> the float values its int8 per-token quantization stands for."""
    x = x.float()
    scale, zero_point = token_qparams(x)
    inverse = 1.0 / scale
    q = torch.clamp(torch.round(x * inverse) + zero_point, -128, 127)
    return (q - zero_point) * scale
