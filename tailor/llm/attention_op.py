"""llm::cache_attention: attention of new queries over a static KV cache, as one operator.

Importing this module defines, with torch.library, in namespace `llm`:

- `cache_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor input_pos,
  int sliding_window, float scale) -> Tensor`:
  q [B, T, Hq, D] (the queries of T new tokens), caches [B, S, Hkv, D] (S positions, Hkv
  key/value heads, Hq a multiple of Hkv: grouped-query attention, query head h reads
  key/value head h / (Hq / Hkv)), input_pos [T] Long. Query t attends to the cache
  positions s with s <= input_pos[t] and, when sliding_window > 0,
  s > input_pos[t] - sliding_window: softmax(scale * q k) v, returned as [B, T, Hq, D];
- its out variant `cache_attention.out(..., *, Tensor(a!) out) -> Tensor(a!)`, which the
  exporter lowers every call to; its kernels (kernels/llm/: an optimized and a portable
  one) come into a build through the model's `kernel_libraries:`, which lists
  tailor.llm.kernels.KERNEL_LIBRARIES;
- a fake implementation, which torch.export runs to learn the output's shape.

The caller writes the new keys and values into the caches first
(`k_cache[:, input_pos] = k`, an index_put the exporter plans in place, so the update
costs the T new rows). Positions are the cache's second dimension so that a token's
keys of every head are one contiguous row, written without a transpose.
"""

import torch

_ARGS = ("Tensor q, Tensor k_cache, Tensor v_cache, Tensor input_pos, int sliding_window, "
         "float scale")

_lib = torch.library.Library("llm", "DEF")
_lib.define(f"cache_attention({_ARGS}) -> Tensor")
_lib.define(f"cache_attention.out({_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def reference(q, k_cache, v_cache, input_pos, sliding_window: int, scale: float):
    """What the kernels compute, in torch (eager runs this)."""
    heads, kv_heads = q.shape[2], k_cache.shape[2]
    positions = k_cache.shape[1]
    k = k_cache.transpose(1, 2).repeat_interleave(heads // kv_heads, dim=1)  # [B, Hq, S, D]
    v = v_cache.transpose(1, 2).repeat_interleave(heads // kv_heads, dim=1)
    scores = (q.transpose(1, 2) @ k.transpose(-2, -1)) * scale           # [B, Hq, T, S]
    s = torch.arange(positions, device=q.device)[None, :]
    seen = s <= input_pos[:, None]
    if sliding_window > 0:
        seen = seen & (s > input_pos[:, None] - sliding_window)
    weights = scores.masked_fill(~seen, float("-inf")).softmax(dim=-1)
    return (weights @ v).transpose(1, 2).contiguous()


def _check(q, k_cache, v_cache, input_pos) -> None:
    torch._check(q.dim() == 4 and k_cache.dim() == 4 and v_cache.shape == k_cache.shape,
                 lambda: "cache_attention: q is [B, T, Hq, D], the caches [B, S, Hkv, D]")
    torch._check(q.shape[2] % k_cache.shape[2] == 0,
                 lambda: "cache_attention: query heads must be a multiple of the kv heads")


def _cache_attention(q, k_cache, v_cache, input_pos, sliding_window, scale):
    _check(q, k_cache, v_cache, input_pos)
    return reference(q, k_cache, v_cache, input_pos, sliding_window, scale)


def _cache_attention_out(q, k_cache, v_cache, input_pos, sliding_window, scale, *, out):
    result = _cache_attention(q, k_cache, v_cache, input_pos, sliding_window, scale)
    return out.resize_(result.shape).copy_(result)


def _cache_attention_fake(q, k_cache, v_cache, input_pos, sliding_window, scale):
    _check(q, k_cache, v_cache, input_pos)
    return q.new_empty(q.shape)


_lib.impl("cache_attention", _cache_attention, "CompositeExplicitAutograd")
_lib.impl("cache_attention.out", _cache_attention_out, "CompositeExplicitAutograd")
torch.library.register_fake("llm::cache_attention", _cache_attention_fake, lib=_lib)


def cache_attention(q, k_cache, v_cache, input_pos, sliding_window: int = 0,
                    scale: float | None = None):
    """The operator; `scale` defaults to 1 / sqrt(D)."""
    if scale is None:
        scale = q.shape[-1] ** -0.5
    return torch.ops.llm.cache_attention(q, k_cache, v_cache, input_pos, sliding_window,
                                         float(scale))
