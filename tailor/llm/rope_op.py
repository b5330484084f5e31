"""llm::rope: rotary position embedding of one projection, as one operator.

Importing this module defines, with torch.library, in namespace `llm`:

- `rope(Tensor x, Tensor cos, Tensor sin) -> Tensor`: x [B, T, H, D] (queries or keys of
  T tokens), cos and sin [T, R] (the tables' rows of the tokens' positions; R even,
  R <= D). The first R dims of each head rotate, the two halves against each other:
  out[:R] = x[:R] * cos + cat(-x[R/2:R], x[:R/2]) * sin (transformers' rotate_half); the
  other D - R dims (partial rotary) pass through;
- its out variant `rope.out(..., *, Tensor(a!) out) -> Tensor(a!)`, which the exporter
  lowers every call to; its kernels are in kernels/llm/ (both manifests of
  tailor.llm.kernels.KERNEL_LIBRARIES);
- a fake implementation, for torch.export.

Why one operator: written in torch, RoPE is a slice, a neg, a cat, two muls and an add
(and a cat for partial rotary) for q and for k in every layer; a decode step's vectors
are a few hundred floats, so those kernel calls cost more than their arithmetic.
"""

import torch

_ARGS = "Tensor x, Tensor cos, Tensor sin"

_lib = torch.library.Library("llm", "FRAGMENT")
_lib.define(f"rope({_ARGS}) -> Tensor")
_lib.define(f"rope.out({_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """What the kernels compute, in torch: transformers' arithmetic, op for op (eager runs
    this, so the decoder's eager logits stay those of transformers)."""
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    dims = cos.shape[-1]
    rot, rest = x[..., :dims], x[..., dims:]
    half = dims // 2
    rotated = torch.cat((-rot[..., half:], rot[..., :half]), dim=-1)
    out = rot * cos + rotated * sin
    return torch.cat((out, rest), dim=-1) if rest.shape[-1] else out


def _check(x, cos, sin) -> None:
    torch._check(x.dim() == 4 and cos.dim() == 2 and sin.shape == cos.shape,
                 lambda: "rope: x is [B, T, H, D], cos and sin [T, R]")
    torch._check(cos.shape[0] == x.shape[1] and cos.shape[1] % 2 == 0
                 and cos.shape[1] <= x.shape[3],
                 lambda: "rope: cos and sin need a row per token and an even R <= D")


def _rope(x, cos, sin):
    _check(x, cos, sin)
    return reference(x, cos, sin)


def _rope_out(x, cos, sin, *, out):
    result = _rope(x, cos, sin)
    return out.resize_(result.shape).copy_(result)


def _rope_fake(x, cos, sin):
    _check(x, cos, sin)
    return x.new_empty(x.shape)


_lib.impl("rope", _rope, "CompositeExplicitAutograd")
_lib.impl("rope.out", _rope_out, "CompositeExplicitAutograd")
torch.library.register_fake("llm::rope", _rope_fake, lib=_lib)


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """The operator: x [B, T, H, D] rotated by the tables' rows cos, sin [T, R]."""
    return torch.ops.llm.rope(x, cos, sin)
