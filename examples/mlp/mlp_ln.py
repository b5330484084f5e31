"""An MLP with LayerNorm and a residual block, for manifests/models/mlp_ln.yaml.

x -> Linear(16, 32) -> h;  h = h + Linear(ReLU(Linear(LayerNorm(h))));  y = Linear(LayerNorm(h))
"""

import torch
from torch import nn

SEED = 0


class MLPLayerNorm(nn.Module):
    def __init__(self, d_in: int = 16, width: int = 32, hidden: int = 64, d_out: int = 4):
        super().__init__()
        self.fc_in = nn.Linear(d_in, width)
        self.ln = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden, width)
        self.ln_out = nn.LayerNorm(width)
        self.head = nn.Linear(width, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc_in(x)
        h = h + self.fc2(self.relu(self.fc1(self.ln(h))))
        return self.head(self.ln_out(h))


def make_mlp_ln(batch: int = 4) -> tuple[nn.Module, tuple[torch.Tensor]]:
    """The model with seeded weights (LayerNorm affine parameters too, so they matter) and
    a seeded (batch, 16) example input. The global RNG state is left as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        model = MLPLayerNorm().eval()
        with torch.no_grad():
            for ln in (model.ln, model.ln_out):
                ln.weight.uniform_(0.5, 1.5)
                ln.bias.uniform_(-0.5, 0.5)
        x = torch.randn(batch, 16)
    return model, (x,)
