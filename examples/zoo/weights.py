"""Random weights that look trained where it matters for checking a runtime."""

import torch
from torch import nn


def randomize_batch_norms(module: nn.Module, seed: int = 0) -> nn.Module:
    """Gives every batch norm running statistics and affine parameters away from their
    defaults (mean 0, var 1, weight 1, bias 0), so folding them changes the weights."""
    g = torch.Generator().manual_seed(seed)
    for bn in module.modules():
        if isinstance(bn, nn.modules.batchnorm._BatchNorm) and bn.track_running_stats:
            n = bn.num_features
            bn.running_mean.copy_((torch.rand(n, generator=g) - 0.5) * 0.2)
            bn.running_var.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
            if bn.affine:
                bn.weight.data.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
                bn.bias.data.copy_((torch.rand(n, generator=g) - 0.5) * 0.2)
    return module
