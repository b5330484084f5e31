"""The custom_linear example's model: the MLP of examples/mlp with its Linear layers
swapped for CustomLinear before export (manifests/models/custom_linear.yaml)."""

from examples.custom_linear.swap import swap_linears
from examples.mlp.model import make_mlp


def make_custom_linear_mlp(batch: int = 4):
    """(module, example inputs): the MLP calling mylib::custom_linear for each layer."""
    module, inputs = make_mlp(batch=batch)
    return swap_linears(module), inputs
