"""A two-layer MLP, the smallest model Tailor builds end to end.

manifests/models/mlp.yaml names make_mlp as its factory.
"""

import torch
from torch import nn

SEED = 0


class MLP(nn.Module):
    """Linear(in, hidden) - ReLU - Linear(hidden, out)."""

    def __init__(self, d_in: int = 16, hidden: int = 32, d_out: int = 4):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.relu(self.fc1(x)))


def make_mlp(batch: int = 4) -> tuple[nn.Module, tuple[torch.Tensor]]:
    """The MLP with seeded weights and a seeded (batch, 16) example input.

    The global RNG state is left as it was, so calling this twice gives the same model.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        model = MLP().eval()
        x = torch.randn(batch, 16)
    return model, (x,)
