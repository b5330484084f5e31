"""tailor_nn::safe_softmax: softmax whose rows of only -inf give 0, as one operator.

torch's scaled_dot_product_attention normalises its scores with aten::_safe_softmax,
which core ATen decomposes into softmax, then eq(-inf), any (through two logical_nots),
full_like and where: six calls and five tensors of the scores' size per attention, most
of them Bool, to zero the rows a mask removed completely. On ViT-Ti those five calls
took longer than the softmax itself (about 10% of the model). decompositions.py lowers
aten::_safe_softmax to this operator instead, whose kernels (kernels/portable,
kernels/optimized) make the check inside the softmax's own pass.

Importing this module defines, with torch.library, in namespace `tailor_nn`:

- `safe_softmax(Tensor self, int dim) -> Tensor`: softmax of `self` along `dim`, except
  that a row whose elements are all -inf gives 0 (plain softmax gives NaN there);
- its out variant `safe_softmax.out(Tensor self, int dim, *, Tensor(a!) out)`;
- a fake implementation, for torch.export.

The eager implementation is torch's own decomposition of aten::_safe_softmax, so eager
and the kernels agree with what the model computes.
"""

import torch

_ARGS = "Tensor self, int dim"

_lib = torch.library.Library("tailor_nn", "DEF")
_lib.define(f"safe_softmax({_ARGS}) -> Tensor")
_lib.define(f"safe_softmax.out({_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def reference(self: torch.Tensor, dim: int) -> torch.Tensor:
    """What the kernels compute, in torch (torch._decomp's _safe_softmax)."""
    out = torch.softmax(self, dim=dim)
    empty_rows = self.eq(float("-inf")).all(dim=dim, keepdim=True)
    return torch.where(empty_rows, torch.zeros_like(out), out)


def _safe_softmax_out(self, dim, *, out):
    result = reference(self, dim)
    return out.resize_(result.shape).copy_(result)


def _safe_softmax_fake(self, dim):
    return torch.empty_like(self)


_lib.impl("safe_softmax", reference, "CompositeExplicitAutograd")
_lib.impl("safe_softmax.out", _safe_softmax_out, "CompositeExplicitAutograd")
torch.library.register_fake("tailor_nn::safe_softmax", _safe_softmax_fake, lib=_lib)


def lowering(torch_decomposition):
    """The decomposition of aten::_safe_softmax: the operator, unless a dtype asks for a
    cast, which `torch_decomposition` (torch's own) then makes."""
    def decompose(self, dim, dtype=None):
        if dtype is not None and dtype != self.dtype:
            return torch_decomposition(self, dim, dtype)
        return torch.ops.tailor_nn.safe_softmax(self, dim)
    return decompose
