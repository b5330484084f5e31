"""Calls that copy or reshape a tensor into an equal one -> their input.

The runtime has no aliasing views, so each of these would be a kernel call that copies
a tensor unchanged: alias; clone; _to_copy to the same dtype; view, reshape, expand,
squeeze, unsqueeze or slice that keep the shape; permute by the identity order; as_strided
that keeps the shape and reads the elements in order. Such a
call is removed and its users read its input, when the shapes are equal for every
value of the dynamic dims and the graph output does not read the call directly (a
returned tensor must be planned memory of its own).

    count = remove_noops(ep)     # transformers' logits slicing: an alias and a full slice
"""

import torch
from torch.fx.experimental.symbolic_shapes import statically_known_true

aten = torch.ops.aten

# Calls that return their input's values rearranged by shape only: equal shapes, so
# equal tensors.
_SHAPE_ONLY = {aten.alias.default, aten.clone.default, aten.view.default,
               aten._unsafe_view.default, aten.reshape.default, aten.expand.default,
               aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims,
               aten.unsqueeze.default, aten.slice.Tensor, aten.alias_copy.default,
               aten.view_copy.default, aten.expand_copy.default, aten.slice_copy.Tensor,
               aten.squeeze_copy.dims}


def _same_shape(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dim() == b.dim() and all(
        statically_known_true(x == y) for x, y in zip(a.shape, b.shape))


def _reads_in_order(source: torch.Tensor, strides, offset) -> bool:
    """Whether as_strided(source, source.shape, strides, offset) reads the contiguous
    tensor in order: offset 0 and row-major strides on every dim longer than 1 (torch
    emits it to give an adaptive pooling's [N, C, 1, 1] result channels-last strides)."""
    if offset not in (None, 0):
        return False
    expected = 1
    for size, stride in reversed(list(zip(source.shape, strides))):
        if not statically_known_true(size == 1) and not statically_known_true(stride == expected):
            return False
        expected = expected * size
    return True


def _is_noop(node: torch.fx.Node) -> bool:
    if node.op != "call_function" or not node.args or \
            not isinstance(node.args[0], torch.fx.Node):
        return False
    source, val = node.args[0].meta.get("val"), node.meta.get("val")
    if not isinstance(source, torch.Tensor) or not isinstance(val, torch.Tensor) \
            or source.dtype != val.dtype or not _same_shape(source, val):
        return False
    if node.target in _SHAPE_ONLY:
        return True
    if node.target is aten._to_copy.default:
        return set(node.kwargs) <= {"dtype", "layout", "device", "memory_format"} \
            and node.kwargs.get("device") in (None, source.device)
    if node.target in (aten.as_strided.default, aten.as_strided_copy.default):
        return _reads_in_order(source, node.args[2], node.args[3] if len(node.args) > 3
                               else node.kwargs.get("storage_offset"))
    if node.target in (aten.permute.default, aten.permute_copy.default):
        rank = source.dim()
        return [d % rank for d in node.args[1]] == list(range(rank)) if rank else True
    return False


def remove_noops(ep: torch.export.ExportedProgram) -> int:
    """Rewrites `ep` in place (see the module docstring); returns how many calls it
    removed."""
    count = 0
    for node in list(ep.graph.nodes):
        if _is_noop(node) and not any(u.op == "output" for u in node.users):
            node.replace_all_uses_with(node.args[0])
            ep.graph.erase_node(node)
            count += 1
    return count
