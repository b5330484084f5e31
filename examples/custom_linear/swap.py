"""Module swapping before export: every nn.Linear of a model becomes a CustomLinear, which
calls the user operator mylib::custom_linear with the same weight and bias."""

import torch
from torch import nn

import examples.custom_linear.ops  # noqa: F401  (defines torch.ops.mylib.custom_linear)


class CustomLinear(nn.Module):
    """nn.Linear's parameters, computed by mylib::custom_linear."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        self.weight = linear.weight
        self.bias = linear.bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mylib.custom_linear(x, self.weight, self.bias)


def swap_linears(module: nn.Module) -> nn.Module:
    """Replaces every nn.Linear below `module` (in place) with a CustomLinear sharing its
    parameters; returns `module`, or its CustomLinear when `module` is itself a Linear."""
    if isinstance(module, nn.Linear):
        return CustomLinear(module)
    for name, child in module.named_children():
        setattr(module, name, swap_linears(child))
    return module
