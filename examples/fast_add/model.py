"""The fast_add example's model: one Float addition and one Long addition, so the
Float call goes to the user's add.out kernel and the Long one to portable's
(manifests/models/fast_add.yaml)."""

import torch
from torch import nn


class TwoAdds(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor, i: torch.Tensor, j: torch.Tensor):
        return torch.add(x, y, alpha=2), i + j


def make_two_adds():
    """(module, example inputs): Float [4, 8] and Long [4, 8] pairs, seeded."""
    g = torch.Generator().manual_seed(0)
    floats = (torch.randn(4, 8, generator=g), torch.randn(4, 8, generator=g))
    longs = (torch.randint(-100, 100, (4, 8), generator=g),
             torch.randint(-100, 100, (4, 8), generator=g))
    return TwoAdds().eval(), floats + longs
