"""A clamp-shaped activation folded into the quantized convolution before it.

relu, relu6 (hardtanh(0, 6)), hardtanh and clamp with number bounds are
clamp(y, low, high). After a tailor_quant::conv2d whose result nothing else reads, the
clamp becomes the convolution's output_min / output_max: the GEMM's epilogue clamps the
outputs in registers, where a separate call would read and write the whole activation
again (a quarter of a quantized MobileNetV2's time went to hardtanh).

    count = fuse_activations(ep)     # 18 for a quantized MobileNetV2 (its depthwise
                                     # convolutions stay float)

Left alone: a convolution that already clamps, one whose output is also read elsewhere
(or is a graph output), an activation that is a graph output (the program's output
names would still name it), and bounds that are not numbers.
"""

import math

import torch

aten = torch.ops.aten


def _bounds(node: torch.fx.Node) -> tuple[float | None, float | None] | None:
    """(low, high) of a clamp-shaped activation, None for either side it leaves open,
    or None when `node` is not one (or its bounds are not numbers)."""
    if node.target is aten.relu.default:
        return 0.0, None
    if node.target is aten.hardtanh.default:
        low = node.args[1] if len(node.args) > 1 else node.kwargs.get("min_val", -1.0)
        high = node.args[2] if len(node.args) > 2 else node.kwargs.get("max_val", 1.0)
    elif node.target is aten.clamp.default:
        low = node.args[1] if len(node.args) > 1 else node.kwargs.get("min")
        high = node.args[2] if len(node.args) > 2 else node.kwargs.get("max")
    else:
        return None
    if any(b is not None and (not isinstance(b, (int, float)) or math.isnan(b))
           for b in (low, high)):
        return None
    return (None if low is None else float(low)), (None if high is None else float(high))


def fuse_activations(ep: torch.export.ExportedProgram) -> int:
    """Folds each clamp-shaped activation into the tailor_quant::conv2d before it (see the
    module docstring); returns how many."""
    conv2d = getattr(getattr(torch.ops, "tailor_quant", None), "conv2d", None)
    if conv2d is None:  # no quantized program has been built in this process
        return 0
    graph = ep.graph
    fused = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not conv2d.default:
            continue
        if len(node.users) != 1 or len(node.args) != 8 or node.kwargs:
            continue  # read elsewhere, or already clamping
        (user,) = node.users
        if user.op != "call_function" or user.args[0] is not node or \
                any(u.op == "output" for u in user.users):
            continue
        bounds = _bounds(user)
        if bounds is None:
            continue
        node.args = (*node.args, *bounds)
        user.replace_all_uses_with(node)
        graph.erase_node(user)
        fused += 1
    if fused:
        graph.lint()
        ep.graph_module.recompile()
    return fused
