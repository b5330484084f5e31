"""Float weights -> quantized weights and scales, packed as the program stores them.

- int8, one scale per row (output channel): q = round(w / s) in [-127, 127],
  s = max|row| / 127;
- int4, one scale per group of `group_size` consecutive inputs: q in [-8, 7],
  s = max|group| / 7 (q = -8 is never produced: the range stays symmetric).

Packed for the SIMD kernels (kernels/quantized/util/qlinear_layout.h), which compute 8
outputs at once from 32 bytes: output rows go in blocks of 8 (the last one padded with
zero rows), and within a block the weights of 8 rows for a few consecutive inputs lie
side by side:

- int8 [ceil(N/8), ceil(K/4) * 32]: per 4 inputs k..k+3, 32 bytes; byte i is
  w[8b + i/4, k + i%4] (K padded with zeros to a multiple of 4);
- int4 [ceil(N/8), K * 4] (K a multiple of 32): per 8 inputs k..k+7, 32 bytes; byte i
  holds w[8b + i/4, k + i%4] + 8 in its low nibble and w[8b + i/4, k + 4 + i%4] + 8 in
  its high nibble.

unpack() is the inverse, used by the eager reference of the ops.
"""

import torch

BLOCK_ROWS = 8


def _scales(amax: torch.Tensor, qmax: int) -> torch.Tensor:
    # An all-zero row or group gets scale 1: its weights quantize to 0 either way.
    return torch.where(amax > 0, amax / qmax, torch.ones_like(amax)).float()


def quantize_int8_rows(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[N, K] float -> (int8 [N, K], float scales [N, 1])."""
    w = w.detach().float()
    scales = _scales(w.abs().amax(dim=1, keepdim=True), 127)
    return torch.clamp(torch.round(w / scales), -127, 127).to(torch.int8), scales


def quantize_int4_groups(w: torch.Tensor, group_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """[N, K] float (K a multiple of group_size) -> (int8 [N, K] in [-8, 7],
    float scales [N, K / group_size])."""
    w = w.detach().float()
    n, k = w.shape
    groups = w.reshape(n, k // group_size, group_size)
    scales = _scales(groups.abs().amax(dim=2), 7)
    q = torch.clamp(torch.round(groups / scales.unsqueeze(2)), -8, 7).to(torch.int8)
    return q.reshape(n, k), scales


def _blocks(q: torch.Tensor, step: int) -> torch.Tensor:
    """[N, K] -> [ceil(N/8), K'/step, step, 8] int16 with K' = K rounded up to `step`,
    zero padded: [block, step of k, k within the step, row within the block]."""
    n, k = q.shape
    padded = torch.zeros(-(-n // BLOCK_ROWS) * BLOCK_ROWS, -(-k // step) * step,
                         dtype=torch.int16)
    padded[:n, :k] = q.to(torch.int16)
    rows, cols = padded.shape
    return padded.reshape(rows // BLOCK_ROWS, BLOCK_ROWS, cols // step, step).permute(0, 2, 3, 1)


def pack_int8(q: torch.Tensor) -> torch.Tensor:
    """int8 [N, K] -> int8 [ceil(N/8), ceil(K/4) * 32] (the module docstring's layout)."""
    b = _blocks(q, 4)                          # [B, K/4, 4 (k), 8 (row)]
    return b.permute(0, 1, 3, 2).reshape(b.shape[0], -1).to(torch.int8)


def pack_int4(q: torch.Tensor) -> torch.Tensor:
    """[N, K] in [-8, 7], K a multiple of 8 -> uint8 [ceil(N/8), K * 4]."""
    b = _blocks(q, 8) + 8                      # [B, K/8, 8 (k), 8 (row)]
    low = b[:, :, :4].permute(0, 1, 3, 2)      # [B, K/8, row, k 0..3]
    high = b[:, :, 4:].permute(0, 1, 3, 2)
    return (low | (high << 4)).reshape(b.shape[0], -1).to(torch.uint8)


def unpack(weight: torch.Tensor, bits: int, n: int, k: int) -> torch.Tensor:
    """A packed weight -> int8 [n, k] (the inverse of pack_int8 / pack_int4)."""
    blocks = weight.shape[0]
    b = weight.to(torch.int16).reshape(blocks, -1, BLOCK_ROWS, 4)   # [B, steps, row, 4]
    if bits == 4:
        b = torch.cat([b & 0xF, b >> 4], dim=3) - 8                # [B, K/8, row, 8]
    q = b.permute(0, 2, 1, 3).reshape(blocks * BLOCK_ROWS, -1)
    return q[:n, :k].to(torch.int8)


def dequantize(weight: torch.Tensor, scales: torch.Tensor, bits: int, k: int) -> torch.Tensor:
    """Packed weight and its scales [G, N] (as the program stores them: a block of 8
    outputs reads its 8 scales of a group with one load) -> float [N, k]."""
    q = unpack(weight, bits, scales.shape[1], k)
    return q.float() * scales.t().float().repeat_interleave(k // scales.shape[0], dim=1)
