"""mylib::custom_linear, a user operator, registered with torch.library.

Importing this module defines, in namespace `mylib`:

- `custom_linear(Tensor input, Tensor weight, Tensor? bias) -> Tensor`, the functional
  form a model calls (CustomLinear in swap.py);
- `custom_linear.out(..., *, Tensor(a!) out) -> Tensor(a!)`, the out variant the exporter
  lowers every call to: the program calls it, and custom_linear.yaml gives its kernel;
- a fake implementation, which torch.export runs to learn the output's shape and dtype.

Eager runs the runtime's own C++ kernel through extension.py, or `reference()` where no
extension is built, so the self-check compares the runtime with the same arithmetic.
"""

import torch
import torch.nn.functional as F

from examples.custom_linear import extension

_ARGS = "Tensor input, Tensor weight, Tensor? bias"

_lib = torch.library.Library("mylib", "DEF")
_lib.define(f"custom_linear({_ARGS}) -> Tensor")
_lib.define(f"custom_linear.out({_ARGS}, *, Tensor(a!) out) -> Tensor(a!)")


def reference(input, weight, bias):
    """What the kernel computes, in torch: y = input @ weight^T + bias."""
    return F.linear(input, weight, bias)


def _custom_linear_out(input, weight, bias, *, out):
    kernel = extension.load()
    if kernel is None:
        result = reference(input, weight, bias)
        return out.resize_(result.shape).copy_(result)
    return kernel.custom_linear_out(input.contiguous(), weight.contiguous(),
                                    None if bias is None else bias.contiguous(), out)


def _custom_linear(input, weight, bias):
    return _custom_linear_out(input, weight, bias, out=input.new_empty(0))


def _custom_linear_fake(input, weight, bias):
    return input.new_empty((*input.shape[:-1], weight.shape[0]))


_lib.impl("custom_linear", _custom_linear, "CompositeExplicitAutograd")
_lib.impl("custom_linear.out", _custom_linear_out, "CompositeExplicitAutograd")
torch.library.register_fake("mylib::custom_linear", _custom_linear_fake, lib=_lib)
