"""Float weights -> quantized weights and scales, packed as the program stores them.

- int8, one scale per row (output channel): q = round(w / s) in [-127, 127],
  s = max|row| / 127;
- int4, one scale per group of `group_size` consecutive inputs: q in [-8, 7],
  s = max|group| / 7 (q = -8 is never produced: the range stays symmetric);
  stored two per byte, offset by 8, in blocks of 32: byte j of a block holds element j
  in its low nibble and element j + 16 in its high nibble, so a SIMD kernel gets 16
  consecutive weights from one mask and 16 from one shift (kernels/quantized/util/int4.h).

unpack_int4() is the inverse, used by the eager reference of the ops.
"""

import torch

INT4_BLOCK = 32


def _scales(amax: torch.Tensor, qmax: int) -> torch.Tensor:
    # An all-zero row or group gets scale 1: its weights quantize to 0 either way.
    return torch.where(amax > 0, amax / qmax, torch.ones_like(amax)).float()


def quantize_int8_rows(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[N, K] float -> (int8 [N, K], float scales [N, 1])."""
    w = w.detach().float()
    scales = _scales(w.abs().amax(dim=1, keepdim=True), 127)
    return torch.clamp(torch.round(w / scales), -127, 127).to(torch.int8), scales


def quantize_int4_groups(w: torch.Tensor, group_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """[N, K] float (K a multiple of group_size) -> (packed uint8 [N, K / 2],
    float scales [N, K / group_size])."""
    w = w.detach().float()
    n, k = w.shape
    groups = w.reshape(n, k // group_size, group_size)
    scales = _scales(groups.abs().amax(dim=2), 7)
    q = torch.clamp(torch.round(groups / scales.unsqueeze(2)), -8, 7).to(torch.int16)
    return pack_int4(q.reshape(n, k)), scales


def pack_int4(q: torch.Tensor) -> torch.Tensor:
    """[N, K] integers in [-8, 7] (K a multiple of 32) -> uint8 [N, K / 2]."""
    n, k = q.shape
    blocks = (q.to(torch.int16) + 8).reshape(n, k // INT4_BLOCK, 2, INT4_BLOCK // 2)
    return (blocks[:, :, 0] | (blocks[:, :, 1] << 4)).reshape(n, k // 2).to(torch.uint8)


def unpack_int4(packed: torch.Tensor) -> torch.Tensor:
    """uint8 [N, K / 2] -> int8 [N, K] in [-8, 7] (the inverse of pack_int4)."""
    n, half = packed.shape
    b = packed.to(torch.int16).reshape(n, half // (INT4_BLOCK // 2), 1, INT4_BLOCK // 2)
    low, high = b & 0xF, b >> 4
    return (torch.cat([low, high], dim=2).reshape(n, half * 2) - 8).to(torch.int8)


def dequantize(weight: torch.Tensor, scales: torch.Tensor, bits: int) -> torch.Tensor:
    """Packed weight and its scales [N, G] -> float [N, K]."""
    q = unpack_int4(weight) if bits == 4 else weight
    group = q.shape[1] // scales.shape[1]
    return q.float() * scales.float().repeat_interleave(group, dim=1)
