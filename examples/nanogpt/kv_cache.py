"""A GPT (examples/nanogpt/model.py) that decodes with a static KV cache.

    cached = CachedGPT(gpt)              # shares gpt's weights; caches hold block_size positions
    logits = cached(tokens, input_pos)   # tokens [1, T] at positions input_pos [T]
                                         # -> the last position's logits [1, 1, vocab]

Each layer keeps its keys and values in buffers [1, block_size, n_head, head_dim], which
the call writes at `input_pos` (`cache[:, input_pos] = k`: an in-place index_put the
exported program keeps as state; a token's keys of every head are one row, written
without a transpose). Queries attend to every cached position up to their own, so the
prompt goes in one call (prefill, T = prompt length) and each later token in a call of
its own (decode, T = 1); positions past the last one written are never scored. That
attention is one operator, llm::cache_attention (tailor/llm/attention_op.py), so the
program reads the caches in place. Generation samples from the last position only, so
the call returns that position's logits (the uncached GPT's last row on the same tokens):
a prefill of T tokens skips the final layer norm and the vocabulary projection of the
other T - 1 (`full_logits=True` keeps every position's).

`make_cached_gpt`, `make_cached_checkpoint` and trained.py's `make_nanogpt_cached` are
manifest factories: the program takes tokens and input_pos with T dynamic; its manifest's
`constant_methods` carry the generation metadata the app reads (get_max_seq_len,
get_vocab_size, get_bos_id, get_eos_ids; `metadata()` gives them for export()), and its
`kernel_libraries:` lists the operator's kernels (tailor/llm/kernels.py's
KERNEL_LIBRARIES: kernels/llm/llm_optimized.yaml, kernels/llm/llm_portable.yaml).
"""

import torch
from torch import nn

from examples.nanogpt.model import GPT, make_gpt
from tailor.llm.attention_op import cache_attention


class CachedGPT(nn.Module):
    def __init__(self, gpt: GPT, full_logits: bool = False):
        super().__init__()
        self.gpt = gpt
        self.full_logits = full_logits
        c = gpt.config
        shape = (1, c.block_size, c.n_head, c.n_embd // c.n_head)
        for i in range(c.n_layer):
            self.register_buffer(f"k_cache_{i}", torch.zeros(shape))
            self.register_buffer(f"v_cache_{i}", torch.zeros(shape))

    def forward(self, idx: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        """Logits [1, 1, vocab] of the last of tokens idx [1, T] at positions input_pos [T]
        (all T positions' [1, T, vocab] with full_logits)."""
        gpt = self.gpt
        x = gpt.drop(gpt.wte(idx) + gpt.wpe(input_pos))
        for i, block in enumerate(gpt.h):
            x = x + self._attend(block.attn, block.ln_1(x), input_pos, i)
            x = x + block.mlp(block.ln_2(x))
        if not self.full_logits:
            x = x[:, -1:, :]
        return gpt.lm_head(gpt.ln_f(x))

    def _attend(self, attn, x: torch.Tensor, input_pos: torch.Tensor, layer: int):
        B, T, C = x.size()
        heads = attn.n_head
        q, k, v = (t.view(B, T, heads, C // heads) for t in attn.c_attn(x).split(C, dim=2))
        k_cache = getattr(self, f"k_cache_{layer}")
        v_cache = getattr(self, f"v_cache_{layer}")
        k_cache[:, input_pos] = k
        v_cache[:, input_pos] = v
        # A query sees the cached positions up to its own (one operator over the caches).
        y = cache_attention(q, k_cache, v_cache, input_pos)
        return attn.resid_dropout(attn.c_proj(y.reshape(B, T, C)))


def metadata(gpt: GPT, eos_id: int) -> dict:
    """The constant methods of a cached GPT program, as export(constant_methods=) takes."""
    return {"get_max_seq_len": gpt.config.block_size, "get_vocab_size": gpt.config.vocab_size,
            "get_bos_id": eos_id, "get_eos_ids": [eos_id]}


def cached_example(gpt: GPT, example_length: int, seed: int = 0):
    """(CachedGPT, example inputs: seeded tokens [1, T] and positions 0..T-1)."""
    idx = torch.randint(0, gpt.config.vocab_size, (1, example_length),
                        generator=torch.Generator().manual_seed(seed))
    return CachedGPT(gpt).eval(), (idx, torch.arange(example_length))


def make_cached_gpt(example_length: int = 8, **overrides):
    """A seeded random GPT (make_gpt's arguments) with a KV cache."""
    gpt, _ = make_gpt(**overrides)
    return cached_example(gpt, example_length)


def make_cached_checkpoint(path: str, n_head: int | None = None, example_length: int = 8):
    """A GPT-2-layout checkpoint file (examples/nanogpt/checkpoint.py) with a KV cache."""
    from examples.nanogpt.checkpoint import load_checkpoint
    return cached_example(load_checkpoint(path, n_head).eval(), example_length)
