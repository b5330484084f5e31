"""nanogpt::cached_attention, the KV-cache attention of CachedGPT, as one operator.

Importing this module defines, with torch.library, in namespace `nanogpt`:

- `cached_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor input_pos) -> Tensor`:
  q [B, T, C] (the heads side by side, C = heads * head_dim), caches [B, heads, S,
  head_dim], input_pos [T]; query t attends to the cached positions 0..input_pos[t]
  (softmax of q k / sqrt(head_dim)), and the result comes back as [B, T, C];
- its out variant `cached_attention.out(..., *, Tensor(a!) out)`, which the exporter
  lowers every call to (kernels/op_cached_attention.cpp is its kernel, declared in
  kernels/nanogpt_kernels.yaml);
- a fake implementation, which torch.export runs to learn the output's shape.

Why one operator: written with aten ops, the attention transposes and reshapes the
caches, and an out-variant program copies each of those views in full, every call; it
also scores every one of the S positions and masks the unwritten ones. The kernel reads
the caches where they are and scores only positions up to each query's own.
"""

import math

import torch

_ARGS = "Tensor q, Tensor k_cache, Tensor v_cache, Tensor input_pos"

_lib = torch.library.Library("nanogpt", "DEF")
_lib.define(f"cached_attention({_ARGS}) -> Tensor")
_lib.define(f"cached_attention.out({_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def reference(q, k_cache, v_cache, input_pos):
    """What the kernel computes, in torch (eager runs this)."""
    B, T, C = q.shape
    heads, positions, head_dim = k_cache.shape[1:]
    q = q.view(B, T, heads, head_dim).transpose(1, 2)
    att = (q @ k_cache.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))
    seen = torch.arange(positions, device=q.device)[None, :] <= input_pos[:, None]
    att = att.masked_fill(~seen, float("-inf")).softmax(dim=-1)
    return (att @ v_cache).transpose(1, 2).reshape(B, T, C)


def _cached_attention_out(q, k_cache, v_cache, input_pos, *, out):
    result = reference(q, k_cache, v_cache, input_pos)
    return out.resize_(result.shape).copy_(result)


def _cached_attention_fake(q, k_cache, v_cache, input_pos):
    return q.new_empty(q.shape)


_lib.impl("cached_attention", reference, "CompositeExplicitAutograd")
_lib.impl("cached_attention.out", _cached_attention_out, "CompositeExplicitAutograd")
torch.library.register_fake("nanogpt::cached_attention", _cached_attention_fake, lib=_lib)


def cached_attention(q, k_cache, v_cache, input_pos):
    return torch.ops.nanogpt.cached_attention(q, k_cache, v_cache, input_pos)
