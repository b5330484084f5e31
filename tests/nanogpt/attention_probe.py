"""A one-operator model for tests/nanogpt/test_cached_attention.py: nanogpt::cached_attention
with the caches as inputs, so a test can hand the runner any cache and positions.

Its shape takes the kernel's less travelled paths: head_dim 24 (not a whole number of
vectors), 1000 cached positions (more keys than one transposed chunk holds, more than 16
queries' scores fit one block)."""

import torch

from examples.nanogpt.attention_op import cached_attention

HEADS, HEAD_DIM, POSITIONS = 2, 24, 1000


class AttentionProbe(torch.nn.Module):
    def forward(self, q, k_cache, v_cache, input_pos):
        return cached_attention(q, k_cache, v_cache, input_pos)


def probe_inputs(positions: list[int], seed: int = 0) -> tuple[torch.Tensor, ...]:
    """Seeded q [1, T, C], caches [1, HEADS, POSITIONS, HEAD_DIM] and input_pos [T]."""
    g = torch.Generator().manual_seed(seed)
    cache = (1, HEADS, POSITIONS, HEAD_DIM)
    return (torch.randn(1, len(positions), HEADS * HEAD_DIM, generator=g),
            torch.randn(cache, generator=g), torch.randn(cache, generator=g),
            torch.tensor(positions, dtype=torch.long))


def make_attention_probe():
    return AttentionProbe().eval(), probe_inputs(list(range(40)))
