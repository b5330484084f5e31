"""Eval batch norm folded into the convolution or linear layer before it.

In eval mode a batch norm is a per-channel affine map, y = (x - mean) * s + beta with
s = gamma / sqrt(var + eps), so after a convolution or a linear layer whose result
nothing else reads it folds into that layer's constants:

    W' = W * s (per output channel),  b' = (b - mean) * s + beta

Folded: aten._native_batch_norm_legit_no_training reading
- aten.convolution (not transposed) with constant weight and bias (or none), or
- aten.addmm(bias, x, permute(W, [1, 0])) with constant bias and W (nn.Linear on 2-d
  input followed by BatchNorm1d),
when the batch norm's statistics and affine parameters are constants and only its
normalized output is used. The old constants stay where other calls still read them
(a shared weight); constant folding drops them otherwise.

    count = fold_batch_norms(ep)     # 20 for a ResNet-18
"""

import operator

import torch

from exporter.passes.graph_constants import add_constant, constant_tensors

aten = torch.ops.aten


def _scale_and_shift(constants: dict, bn: torch.fx.Node):
    """(s, beta - mean * s) of batch norm `bn`, or None if its statistics are not
    constants."""
    _, gamma, beta, mean, var = bn.args[:5]
    eps = bn.args[6]
    if any(v is not None and v not in constants for v in (gamma, beta)) \
            or mean not in constants or var not in constants:
        return None
    mean, var = constants[mean].double(), constants[var].double()
    scale = torch.rsqrt(var + eps)
    if gamma is not None:
        scale = scale * constants[gamma].double()
    shift = -mean * scale
    if beta is not None:
        shift = shift + constants[beta].double()
    return scale, shift


def _only_normalized_output(bn: torch.fx.Node) -> torch.fx.Node | None:
    """The getitem taking output 0 of `bn`, if nothing reads its other outputs."""
    first = None
    for user in bn.users:
        if user.target is not operator.getitem:
            return None
        if user.args[1] == 0:
            first = user
        elif user.users:
            return None
    return first


def _fold_into(ep, constants: dict, layer: torch.fx.Node, weight: torch.fx.Node,
               bias, scale, shift, channel_dim: int) -> tuple:
    """New constants W' and b' for `layer`, placed after the old weight."""
    w = constants[weight]
    shape = [1] * w.dim()
    shape[channel_dim] = -1
    new_w = (w.double() * scale.reshape(shape)).to(w.dtype)
    b = constants[bias].double() if bias is not None else torch.zeros_like(scale)
    new_b = (b * scale + shift).to(w.dtype)
    w_node = add_constant(ep, f"bn_folded_{layer.name}_weight", new_w, after=weight)
    b_node = add_constant(ep, f"bn_folded_{layer.name}_bias", new_b, after=w_node)
    constants[w_node], constants[b_node] = new_w, new_b
    return w_node, b_node


def fold_batch_norms(ep: torch.export.ExportedProgram) -> int:
    """Rewrites `ep` in place (see the module docstring); returns how many batch norms
    it folded."""
    constants = constant_tensors(ep)
    count = 0
    for bn in list(ep.graph.nodes):
        if bn.target is not aten._native_batch_norm_legit_no_training.default:
            continue
        layer = bn.args[0]
        output = _only_normalized_output(bn)
        factors = _scale_and_shift(constants, bn)
        if output is None or factors is None or len(layer.users) != 1:
            continue
        if layer.target is aten.convolution.default and not layer.args[6]:
            weight, bias = layer.args[1], layer.args[2]
            if weight not in constants or (bias is not None and bias not in constants):
                continue
            w_node, b_node = _fold_into(ep, constants, layer, weight, bias, *factors, 0)
            layer.args = (layer.args[0], w_node, b_node, *layer.args[3:])
        elif layer.target is aten.addmm.default and layer.args[0] in constants \
                and layer.args[2].target is aten.permute.default \
                and list(layer.args[2].args[1]) == [1, 0] \
                and layer.args[2].args[0] in constants and len(layer.args[2].users) == 1 \
                and constants[layer.args[0]].dim() == 1:
            permute = layer.args[2]
            w_node, b_node = _fold_into(ep, constants, layer, permute.args[0], layer.args[0],
                                        *factors, 0)
            permute.args = (w_node, *permute.args[1:])
            layer.args = (b_node, *layer.args[1:])
        else:
            continue
        output.replace_all_uses_with(layer)
        for user in list(bn.users):
            ep.graph.erase_node(user)
        ep.graph.erase_node(bn)
        count += 1
    return count
