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
- int4 [ceil(N/8), G * (S * 4 + 32)] (G groups of S inputs, S a multiple of 32): per
  group, its weights, per 8 inputs k..k+7 32 bytes whose byte i holds w[8b + i/4, k + i%4]
  + 8 in its low nibble and w[8b + i/4, k + 4 + i%4] + 8 in its high nibble; then the
  group's 8 scales (float32, one per row of the block; padding rows 0). A block's weights
  and scales are then one stream that a decode step reads front to back. The op's
  weight_scales is an empty Float [0, N] that carries N.

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


SCALE_BYTES = BLOCK_ROWS * 4   # an int4 group's scales in its block


def pack_int4(q: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """[N, K] in [-8, 7] and float scales [N, G] (K / G a multiple of 8) -> uint8
    [ceil(N/8), G * (K / G * 4 + 32)]: each group's weights, then its scales."""
    b = _blocks(q, 8) + 8                      # [B, K/8, 8 (k), 8 (row)]
    low = b[:, :, :4].permute(0, 1, 3, 2)      # [B, K/8, row, k 0..3]
    high = b[:, :, 4:].permute(0, 1, 3, 2)
    blocks, groups = b.shape[0], scales.shape[1]
    weights = (low | (high << 4)).to(torch.uint8).reshape(blocks, groups, -1)
    padded = torch.zeros(blocks * BLOCK_ROWS, groups, dtype=torch.float32)
    padded[:scales.shape[0]] = scales.float()
    group_scales = padded.reshape(blocks, BLOCK_ROWS, groups).permute(0, 2, 1).contiguous()
    return torch.cat([weights, group_scales.view(torch.uint8)], dim=2).reshape(blocks, -1)


def int4_groups(weight: torch.Tensor, k: int) -> int:
    """The scale groups per row of an int4 table over k inputs (from its row bytes)."""
    return (weight.shape[1] - k * 4) // SCALE_BYTES


def _int4_parts(weight: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """An int4 table -> (its weight bytes [B, K * 4], its scales [B * 8, G])."""
    blocks, groups = weight.shape[0], int4_groups(weight, k)
    split = weight.reshape(blocks, groups, -1)
    scales = split[:, :, -SCALE_BYTES:].contiguous().view(torch.float32)   # [B, G, row]
    return (split[:, :, :-SCALE_BYTES].reshape(blocks, -1),
            scales.permute(0, 2, 1).reshape(blocks * BLOCK_ROWS, groups))


def unpack(weight: torch.Tensor, bits: int, n: int, k: int) -> torch.Tensor:
    """A packed weight -> int8 [n, k] (the inverse of pack_int8 / pack_int4)."""
    blocks = weight.shape[0]
    if bits == 4:
        weight = _int4_parts(weight, k)[0]
    b = weight.to(torch.int16).reshape(blocks, -1, BLOCK_ROWS, 4)   # [B, steps, row, 4]
    if bits == 4:
        b = torch.cat([b & 0xF, b >> 4], dim=3) - 8                # [B, K/8, row, 8]
    q = b.permute(0, 2, 1, 3).reshape(blocks * BLOCK_ROWS, -1)
    return q[:n, :k].to(torch.int8)


def row_scales(weight: torch.Tensor, scales: torch.Tensor, bits: int, k: int) -> torch.Tensor:
    """Each row's scale for each of its k inputs, float [N, k]: int8 from scales [1, N];
    int4 from the groups' scales in the weight blocks (scales is [0, N])."""
    n = scales.shape[1]
    if bits == 8:
        return scales.t().float().expand(n, k)
    per_group = _int4_parts(weight, k)[1][:n]
    return per_group.repeat_interleave(k // per_group.shape[1], dim=1)


def dequantize(weight: torch.Tensor, scales: torch.Tensor, bits: int, k: int) -> torch.Tensor:
    """Packed weight and its weight_scales (as the program stores them) -> float [N, k]."""
    return unpack(weight, bits, scales.shape[1], k).float() * row_scales(weight, scales, bits, k)
