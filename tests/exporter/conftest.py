"""Fixtures for the exporter tests: models are exported once per module."""

import os
import sys

import pytest
import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

from examples.mlp.model import make_mlp  # noqa: E402
from exporter.export import export  # noqa: E402

MLP_MAX_BATCH = 8


@pytest.fixture(scope="session")
def mlp():
    """(module, example inputs) of the example MLP."""
    return make_mlp()


@pytest.fixture(scope="session")
def mlp_program(mlp):
    module, inputs = mlp
    batch = torch.export.Dim("batch", min=1, max=MLP_MAX_BATCH)
    return export(module, inputs, ({0: batch},))
