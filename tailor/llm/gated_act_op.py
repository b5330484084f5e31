"""llm::gated_act: a gated MLP's activation, act(gate) * up, as one operator.

Importing this module defines, with torch.library, in namespace `llm`:

- `gated_act(Tensor h, str act) -> Tensor`: h [..., 2I] (the up projection's output,
  gate then up); out [..., I] = act(h[..., :I]) * h[..., I:], act one of ACTIVATIONS'
  names (silu, gelu, gelu_tanh);
- its out variant `gated_act.out(..., *, Tensor(a!) out) -> Tensor(a!)`, which the
  exporter lowers every call to; its kernels are in kernels/llm/ (both manifests of
  tailor.llm.kernels.KERNEL_LIBRARIES);
- a fake implementation, for torch.export.

Why one operator: written in torch it is a split copy, the activation (SiLU: sigmoid
and mul) and a mul, a kernel call each on rows of a few thousand floats per layer, and
the split copies the whole of h once more.
"""

import torch
import torch.nn.functional as F

# The decoder's activations by LlmConfig.activation's name (transformers' functions).
ACTIVATIONS = {"silu": F.silu, "gelu": F.gelu,
               "gelu_tanh": lambda x: F.gelu(x, approximate="tanh")}

_ARGS = "Tensor h, str act"

_lib = torch.library.Library("llm", "FRAGMENT")
_lib.define(f"gated_act({_ARGS}) -> Tensor")
_lib.define(f"gated_act.out({_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def reference(h: torch.Tensor, act: str) -> torch.Tensor:
    """What the kernels compute, in torch: the decoder's arithmetic, op for op (eager runs
    this, so the decoder's eager logits stay those of transformers)."""
    gate, up = h.chunk(2, dim=-1)
    return ACTIVATIONS[act](gate) * up


def _check(h, act) -> None:
    torch._check(act in ACTIVATIONS,
                 lambda: f"gated_act: act is one of {', '.join(ACTIVATIONS)}, not {act!r}")
    torch._check(h.dim() >= 1 and h.shape[-1] % 2 == 0,
                 lambda: f"gated_act: h is [..., 2I]; its last dim is {h.shape[-1]}")


def _gated_act(h, act):
    _check(h, act)
    return reference(h, act)


def _gated_act_out(h, act, *, out):
    result = _gated_act(h, act)
    return out.resize_(result.shape).copy_(result)


def _gated_act_fake(h, act):
    _check(h, act)
    return h.new_empty((*h.shape[:-1], h.shape[-1] // 2))


_lib.impl("gated_act", _gated_act, "CompositeExplicitAutograd")
_lib.impl("gated_act.out", _gated_act_out, "CompositeExplicitAutograd")
torch.library.register_fake("llm::gated_act", _gated_act_fake, lib=_lib)


def gated_act(h: torch.Tensor, act: str) -> torch.Tensor:
    """The operator: act(h[..., :I]) * h[..., I:] for h [..., 2I]."""
    return torch.ops.llm.gated_act(h, act)
