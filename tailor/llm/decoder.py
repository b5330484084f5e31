"""The decoder of every supported architecture, with a static KV cache, in torch.

    decoder = Decoder(config, load_weights(config), max_seq_len=512)
    logits = decoder(tokens, input_pos)   # tokens [1, T] Long at positions input_pos [T]
                                          # -> the last position's logits [1, 1, vocab]

Each layer keeps its keys and values in buffers [1, max_seq_len, kv_heads, head_dim]
(grouped-query attention keeps its kv heads: no expanded copies), written at input_pos
(`cache[:, input_pos] = k`, which the exporter plans in place) and read in place by one
operator, llm::cache_attention (attention_op.py), which also applies the layer's
sliding window. RoPE on q and on k is one operator each, llm::rope (rope_op.py), and
so is each RMSNorm, llm::rms_norm (rms_norm_op.py), and a gated MLP's act(gate) * up,
llm::gated_act (gated_act_op.py).
The prompt goes in one call (prefill, T = its length), each later token in a call of
its own (decode, T = 1). Only the last position's logits come back:
generation samples from it, so a prefill skips the final norm and the vocabulary
projection of the other T - 1 positions.

The arithmetic follows transformers' implementation of each architecture (RoPE tables
as it computes them, norms in float32, the activations it names), so greedy generation
gives the same ids. Differences between architectures are LlmConfig fields (config.py).
"""

import math

import torch
from torch import nn

from tailor.llm.attention_op import cache_attention
from tailor.llm.config import LlmConfig, Rope
from tailor.llm.gated_act_op import ACTIVATIONS, gated_act
from tailor.llm.rms_norm_op import rms_norm
from tailor.llm.rope_op import rope as rotary


def inverse_frequencies(rope: Rope, head_dim: int) -> torch.Tensor:
    """RoPE's inverse frequencies for the rotating dims, with the checkpoint's scaling."""
    dim = int(head_dim * rope.fraction)
    inv = 1.0 / (rope.theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    if rope.scaling == "linear":
        return inv / rope.factor
    if rope.scaling == "llama3":  # long wavelengths slowed by `factor`, a blend between
        low = rope.original_max_positions / rope.low_freq_factor
        high = rope.original_max_positions / rope.high_freq_factor
        wavelength = 2 * math.pi / inv
        scaled = torch.where(wavelength > low, inv / rope.factor, inv)
        smooth = ((rope.original_max_positions / wavelength - rope.low_freq_factor)
                  / (rope.high_freq_factor - rope.low_freq_factor))
        blended = (1 - smooth) * scaled / rope.factor + smooth * scaled
        middle = ~(wavelength < high) & ~(wavelength > low)
        return torch.where(middle, blended, scaled)
    return inv


class RmsNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return rms_norm(x, self.weight, self.eps)


def _norm(config: LlmConfig) -> nn.Module:
    if config.norm == "layer":
        return nn.LayerNorm(config.hidden, eps=config.norm_eps)
    return RmsNorm(config.hidden, config.norm_eps)  # Gemma's 1 + w is in the weight


class Layer(nn.Module):
    def __init__(self, config: LlmConfig, window: int):
        super().__init__()
        c = config
        self.heads, self.kv_heads, self.head_dim = c.heads, c.kv_heads, c.head_dim
        self.window = window
        self.gated, self.parallel = c.gated_mlp, c.parallel_residual
        self.activation = c.activation
        self.act = ACTIVATIONS[c.activation]
        self.attn_norm, self.mlp_norm = _norm(c), _norm(c)
        self.qkv = nn.Linear(c.hidden, (c.heads + 2 * c.kv_heads) * c.head_dim, bias=c.qkv_bias)
        self.out = nn.Linear(c.heads * c.head_dim, c.hidden, bias=c.out_bias)
        self.up = nn.Linear(c.hidden, c.intermediate * (2 if c.gated_mlp else 1), bias=c.mlp_bias)
        self.down = nn.Linear(c.intermediate, c.hidden, bias=c.mlp_bias)

    def attend(self, x, input_pos, cos, sin, k_cache, v_cache):
        B, T, _ = x.shape
        q_size, kv_size = self.heads * self.head_dim, self.kv_heads * self.head_dim
        q, k, v = self.qkv(x).split([q_size, kv_size, kv_size], dim=-1)
        q = q.view(B, T, self.heads, self.head_dim)
        k = k.view(B, T, self.kv_heads, self.head_dim)
        if cos is not None:
            q, k = rotary(q, cos, sin), rotary(k, cos, sin)
        k_cache[:, input_pos] = k
        v_cache[:, input_pos] = v.view(B, T, self.kv_heads, self.head_dim)
        y = cache_attention(q, k_cache, v_cache, input_pos, self.window)
        return self.out(y.view(B, T, q_size))

    def mlp(self, x):
        h = self.up(x)
        if self.gated:
            return self.down(gated_act(h, self.activation))
        return self.down(self.act(h))

    def forward(self, x, input_pos, cos, sin, k_cache, v_cache):
        attended = self.attend(self.attn_norm(x), input_pos, cos, sin, k_cache, v_cache)
        if self.parallel:
            return x + attended + self.mlp(self.mlp_norm(x))
        x = x + attended
        return x + self.mlp(self.mlp_norm(x))


class Decoder(nn.Module):
    def __init__(self, config: LlmConfig, weights: dict, max_seq_len: int):
        super().__init__()
        c = config
        self.config, self.max_seq_len = c, max_seq_len
        self.embed = nn.Embedding(c.vocab_size, c.hidden)
        self.positions = nn.Embedding(c.max_positions, c.hidden) if c.rope is None else None
        self.layers = nn.ModuleList(Layer(c, w) for w in c.sliding_windows)
        self.norm = _norm(c)
        self.lm_head = nn.Linear(c.hidden, c.vocab_size, bias=False)
        if c.tied_embeddings:
            self.lm_head.weight = self.embed.weight  # one table, stored once
        missing, unexpected = self.load_state_dict(weights, strict=False)
        missing = [m for m in missing if not (c.tied_embeddings and m == "lm_head.weight")]
        assert not missing and not unexpected, (missing, unexpected)
        if c.rope is not None:  # RoPE tables for every position, as transformers computes
            inv = inverse_frequencies(c.rope, c.head_dim)
            angles = torch.arange(max_seq_len).float()[:, None] * inv[None, :]
            angles = torch.cat((angles, angles), dim=-1)
            self.register_buffer("cos", angles.cos(), persistent=False)
            self.register_buffer("sin", angles.sin(), persistent=False)
        shape = (1, max_seq_len, c.kv_heads, c.head_dim)
        for i in range(c.layers):
            self.register_buffer(f"k_cache_{i}", torch.zeros(shape))
            self.register_buffer(f"v_cache_{i}", torch.zeros(shape))

    def _embed(self, tokens: torch.Tensor) -> torch.Tensor:
        """The tokens' rows of the embedding table. A tied table is read through the
        output projection's transpose, [hidden, vocab], which the exporter folds into a
        constant for the projection's product anyway: the program then holds the table
        once (reading rows as columns costs T strided gathers). When quantization has
        replaced the projection, the embedding reads its own (quantized) table."""
        if self.config.tied_embeddings and type(self.lm_head) is nn.Linear:
            return self.lm_head.weight.t()[:, tokens].permute(1, 2, 0)
        return self.embed(tokens)

    def forward(self, tokens: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        """Logits [1, 1, vocab] of the last of `tokens` [1, T] at positions input_pos [T]."""
        x = self._embed(tokens)
        if self.config.embed_scale != 1.0:
            x = x * torch.tensor(self.config.embed_scale, dtype=x.dtype)
        if self.positions is not None:
            x = x + self.positions(input_pos)
        cos = sin = None
        if self.config.rope is not None:
            cos, sin = self.cos[input_pos], self.sin[input_pos]  # [T, R]
        for i, layer in enumerate(self.layers):
            x = layer(x, input_pos, cos, sin, getattr(self, f"k_cache_{i}"),
                      getattr(self, f"v_cache_{i}"))
        return self.lm_head(self.norm(x[:, -1:, :]))
