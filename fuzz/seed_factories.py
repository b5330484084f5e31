"""Model factories of the fuzz seeds (fuzz/seed_models/*.yaml): each as small as a model
can be and still reach the kernels it is there for, since every byte of a seed costs
every mutation of it."""

import torch
from torch import nn

from examples.zoo.weights import randomize_batch_norms


def make_conv_micro(seed: int = 0):
    """2-D convolutions (plain with batch norm folded in, strided, depthwise), max and
    average pooling and a linear head, 4 channels over a 6x6 image: the optimized
    convolution and pooling kernels, or XNNPACK's when delegated."""
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 4, 3, padding=1, groups=4), nn.Hardtanh(0.0, 6.0),
        nn.Conv2d(4, 4, 1, stride=2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3))
    randomize_batch_norms(model, seed)
    image = torch.randn(1, 2, 6, 6, generator=torch.Generator().manual_seed(seed))
    return model.eval(), (image,)


def make_quant_mlp(seed: int = 0):
    """Linear(32, 32) - ReLU - Linear(32, 8): the narrowest MLP whose layers a 4-bit
    scheme quantizes (its groups are 32 inputs wide)."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 8))
    x = torch.randn(2, 32, generator=torch.Generator().manual_seed(seed))
    return model.eval(), (x,)
