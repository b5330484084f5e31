"""llm::rms_norm: a decoder's RMSNorm as one operator.

Importing this module defines, with torch.library, in namespace `llm`:

- `rms_norm(Tensor x, Tensor weight, float eps) -> Tensor`: x [..., D], weight [D]; each
  row of D floats is scaled by 1 / sqrt(mean(x^2) + eps), then by weight:
  x * rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight (transformers' LlamaRMSNorm
  in float32; Gemma's 1 + w is already in the weight);
- its out variant `rms_norm.out(..., *, Tensor(a!) out) -> Tensor(a!)`, which the
  exporter lowers every call to; its kernels are in kernels/llm/ (both manifests of
  tailor.llm.kernels.KERNEL_LIBRARIES);
- a fake implementation, for torch.export.

Why one operator: written in torch, RMSNorm is pow, mean, add, rsqrt, mul and mul, six
kernel calls for every norm (two a layer and the final one); a decode step's row is a few
hundred floats, so the calls cost more than their arithmetic.
"""

import torch

_ARGS = "Tensor x, Tensor weight, float eps"

_lib = torch.library.Library("llm", "FRAGMENT")
_lib.define(f"rms_norm({_ARGS}) -> Tensor")
_lib.define(f"rms_norm.out({_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def reference(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """What the kernels compute, in torch: the decoder's arithmetic, op for op (eager runs
    this, so the decoder's eager logits stay those of transformers)."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def _check(x, weight) -> None:
    torch._check(x.dim() >= 1 and weight.dim() == 1,
                 lambda: "rms_norm: x is [..., D] and weight [D]")
    torch._check(weight.shape[0] == x.shape[-1],
                 lambda: f"rms_norm: weight has {weight.shape[0]} floats for rows of "
                         f"{x.shape[-1]}")


def _rms_norm(x, weight, eps):
    _check(x, weight)
    return reference(x, weight, eps)


def _rms_norm_out(x, weight, eps, *, out):
    result = _rms_norm(x, weight, eps)
    return out.resize_(result.shape).copy_(result)


def _rms_norm_fake(x, weight, eps):
    _check(x, weight)
    return x.new_empty(x.shape)


_lib.impl("rms_norm", _rms_norm, "CompositeExplicitAutograd")
_lib.impl("rms_norm.out", _rms_norm_out, "CompositeExplicitAutograd")
torch.library.register_fake("llm::rms_norm", _rms_norm_fake, lib=_lib)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """The operator: each row of x [..., D] over its root mean square, times weight [D]."""
    return torch.ops.llm.rms_norm(x, weight, float(eps))
