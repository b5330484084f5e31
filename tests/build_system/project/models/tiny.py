"""A tiny MLP: imported from the project's root (manifests/models/tiny.yaml)."""

import torch


def make():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    return model.eval(), (torch.randn(2, 8),)
