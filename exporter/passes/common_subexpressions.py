"""Repeated calls -> one call: common-subexpression elimination on the core-ATen graph.

Two calls are merged (the later one's users read the earlier one, and the later one
goes) when they call the same operator on the same arguments: the same graph nodes in
the same positions, and literals (numbers, int lists, dtypes, devices ...) that are
equal and of the same type, so `1` never matches `1.0` or `True`, nor `0.0` `-0.0`.

Only calls that are safe to share are merged (an allow-rule, so anything unexpected
stays as it is):

- aten operators that are functional: the schema writes to nothing (no in-place or
  out= overloads), and they return something (asserts run for their check);
- not random (tagged nondeterministic_seeded: rand, dropout, bernoulli ...), and not
  the empty* ops, whose contents are undefined, so two of them are not "equal";
- operator.getitem, so the outputs of two merged multi-output calls merge too;
- neither call is read by the graph output directly (a returned tensor must be
  planned memory of its own, and two outputs must not become one value).

The graph is walked in order, so once two calls merge, the calls that read them have
equal arguments too and whole chains collapse. The typical case is a causal mask built
in each attention layer from the sequence length (full, arange, sub, le, logical_and,
bitwise_not): with a dynamic length constant folding cannot remove it, but every
layer computes the same mask, so the program computes it once.

    count = merge_common_subexpressions(ep)     # 18 for the 4-layer demo GPT's masks
"""

import operator

import torch

# Ops whose result has undefined contents: two of them are not the same tensor.
_UNINITIALIZED = frozenset({"aten::empty_like", "aten::new_empty", "aten::new_empty_strided",
                            "aten::empty", "aten::empty_strided", "aten::empty_permuted"})


class _Unhashable(Exception):
    """An argument this pass cannot compare safely: the call is left alone."""


def _can_share(node: torch.fx.Node) -> bool:
    """Whether `node` may be merged with an equal call (the rule of the module docstring)."""
    if node.op != "call_function" or any(u.op == "output" for u in node.users):
        return False
    op = node.target
    if op is operator.getitem:
        return True
    if not isinstance(op, torch._ops.OpOverload) or op.namespace != "aten":
        return False
    schema = op._schema
    return not schema.is_mutable and len(schema.returns) > 0 \
        and torch.Tag.nondeterministic_seeded not in op.tags \
        and schema.name not in _UNINITIALIZED


def _literal_key(value):
    """A hashable key equal for two arguments exactly when they mean the same thing."""
    if isinstance(value, torch.fx.Node):
        return ("node", value)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_literal_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, _literal_key(v)) for k, v in value.items())))
    if isinstance(value, float):
        # repr tells -0.0 from 0.0 (which compare equal) and makes NaN equal to itself.
        return ("float", repr(value))
    if isinstance(value, (bool, int, str, type(None), torch.dtype, torch.device,
                          torch.layout, torch.memory_format)):
        return (type(value).__name__, value)
    raise _Unhashable(type(value).__name__)


def _call_key(node: torch.fx.Node):
    return (node.target, _literal_key(node.args), _literal_key(dict(node.kwargs)))


def merge_common_subexpressions(ep: torch.export.ExportedProgram) -> int:
    """Rewrites `ep` in place (see the module docstring); returns how many calls it
    removed."""
    first_call = {}
    count = 0
    for node in list(ep.graph.nodes):
        if not _can_share(node):
            continue
        try:
            key = _call_key(node)
        except _Unhashable:
            continue
        earlier = first_call.setdefault(key, node)
        if earlier is not node:
            node.replace_all_uses_with(earlier)
            ep.graph.erase_node(node)
            count += 1
    return count
