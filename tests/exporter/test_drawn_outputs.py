"""exporter/drawn_outputs.py: which outputs hold random (or unset) numbers."""

import torch
from torch import nn

from exporter.drawn_outputs import drawn_outputs
from exporter.export import trace


class Mixed(nn.Module):
    def forward(self, x):
        noisy = x + torch.randn_like(x)                        # drawn, through an add
        kept = torch.ops.aten.native_dropout.default(x, 0.5, False)[0]  # eval: no draw
        shaped = torch.full_like(torch.rand(2, 3), 2.0)        # reads rand's shape only
        masked = torch.ops.aten.native_dropout.default(x, 0.5, True)[1]
        return x * 2, noisy, kept, shaped, masked, torch.empty(2)


def test_drawn_outputs_follow_values_not_shapes():
    assert drawn_outputs(trace(Mixed(), (torch.randn(2, 3),))) == (1, 4, 5)


def test_a_program_without_random_ops_has_none():
    assert drawn_outputs(trace(nn.Linear(3, 2), (torch.randn(1, 3),))) == ()
