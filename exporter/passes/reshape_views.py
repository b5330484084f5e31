"""Squeezes, unsqueezes and permutes that keep the elements in order -> views.

A squeeze or unsqueeze, and a permute that moves only dims of size 1, give the same
elements in the same order: a reshape. As view_copy the call takes its input's bytes
(tensor_placement.py plans it as an alias and the kernel skips its copy), where
squeeze_copy, unsqueeze_copy and permute_copy each copy the tensor. nn.MultiheadAttention
makes four such calls per layer (batch-first transposes of one image, the packed
projection's unsqueeze and squeeze): 3% of ViT-Ti's time. Only where the view can share
the bytes: its input is no graph input, weight or buffer and its result no graph output
(a caller may point those at its own memory; the copy stays), and only static shapes (a
view then names its sizes as ints).

    count = reshapes_to_views(ep)
"""

import torch

aten = torch.ops.aten

_SQUEEZES = {aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims, aten.unsqueeze.default,
             aten.squeeze_copy.default, aten.squeeze_copy.dim, aten.squeeze_copy.dims,
             aten.unsqueeze_copy.default}
_PERMUTES = {aten.permute.default, aten.permute_copy.default}


def _static_shape(t) -> list[int] | None:
    return [int(s) for s in t.shape] if all(isinstance(s, int) for s in t.shape) else None


def _keeps_order(node: torch.fx.Node, source: torch.Tensor) -> bool:
    """Whether the call gives `source`'s elements in their order."""
    if node.target in _SQUEEZES:
        return True
    if node.target in _PERMUTES:
        rank = source.dim()
        moved = [d % rank for d in node.args[1] if source.shape[d % rank] != 1]
        return moved == sorted(moved)
    return False


def reshapes_to_views(ep: torch.export.ExportedProgram) -> int:
    """Rewrites `ep` in place (see the module docstring); returns how many calls became
    views."""
    count = 0
    for node in list(ep.graph.nodes):
        if node.op != "call_function" or node.target not in _SQUEEZES | _PERMUTES \
                or not node.args or not isinstance(node.args[0], torch.fx.Node) \
                or node.args[0].op == "placeholder" or any(u.op == "output" for u in node.users):
            continue
        source, val = node.args[0].meta.get("val"), node.meta.get("val")
        if not isinstance(source, torch.Tensor) or not isinstance(val, torch.Tensor):
            continue
        shape = _static_shape(val)
        if shape is None or _static_shape(source) is None or not _keeps_order(node, source):
            continue
        with ep.graph.inserting_before(node):
            view = ep.graph.call_function(aten.view.default, (node.args[0], shape))
        view.meta = dict(node.meta)
        node.replace_all_uses_with(view)
        ep.graph.erase_node(node)
        count += 1
    return count
