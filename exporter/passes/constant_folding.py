"""Core-ATen ExportedProgram -> the same program with its constant subexpressions folded.

Input: a torch.export ExportedProgram decomposed to core ATen (the last of the passes
that exporter/passes/__init__.py runs before program_builder.py). Output: the same program, rewritten
in place, and the names of the graph nodes folded away.

A call is folded, i.e. evaluated once here with torch and replaced by a new lifted
constant tensor (InputKind.CONSTANT_TENSOR, in ep.constants), when all of these hold:

- it is an aten operator that is functional (its schema writes to nothing) and
  deterministic (not tagged nondeterministic_seeded, and not one of the empty* ops,
  whose contents are undefined);
- every graph value it reads is a constant: a parameter, a buffer, a lifted tensor
  constant, or an already folded call (so chains such as reshape(permute(W)) fold
  whole); numbers, int lists, dtypes ... are literals. A call that reads no tensor at
  all (arange, full at a fixed size) folds too, so masks and rotary tables built from
  them at a static sequence length become constants;
- it returns one tensor of static shape, and the graph output does not use it directly
  (a returned tensor must be planned memory, so `return self.table` still copies);
- the result is no larger than the tensors it reads together, or at most
  MAX_GROWTH_BYTES when it is larger (expand, repeat, casts to a wider dtype, ...), so a
  folded constant never blows up the program. Layout ops (permute, view, squeeze,
  clone, ...) are always within the first bound.

The typical case is nn.Linear: core ATen computes addmm(bias, x, permute(W, [1, 0])), and
the program now holds W already transposed, so the runtime neither runs nor links
permute_copy for it. Calls that read anything computed at run time (model inputs,
symbolic sizes, ...) are left alone. A constant that no call reads any more afterwards
(W above, unless something else still uses it, like a weight tied to an embedding;
shape checks such as _assert_tensor_metadata, settled when tracing, do not count) is
removed from the program, so only what the method reads is serialized. The constant
segment deduplicates equal bytes (exporter/constant_segment.py), so a fold that does
not change the bytes (a view of a weight that is still used) costs nothing.

MAX_GROWTH_BYTES (64 KiB: a 128 x 128 float mask, a rotary table of 256 positions x 64)
bounds what each folded broadcast, cast or table adds to the program, however large
the model. Values are
computed by torch on the exporting machine, like the expected outputs of the
self-check, so a non-exact float op (exp, a reduction, ...) gives torch eager's result.

There is no CLI of its own: `python -m exporter` runs it and prints how many calls it
folded.

    names = fold_constants(ep)     # ("permute", "permute_1") for the example MLP
"""

import torch

from exporter.out_variants import IGNORED_TARGETS
from exporter.passes.graph_constants import add_constant, constant_tensors, drop_unused_constants

MAX_GROWTH_BYTES = 65536  # a folded result larger than its inputs may take at most this
# Ops whose result has undefined contents: folding them would store arbitrary bytes.
_UNINITIALIZED = frozenset({"aten::empty_like", "aten::new_empty", "aten::new_empty_strided",
                            "aten::empty", "aten::empty_strided", "aten::empty_permuted"})


def _nbytes(t) -> int:
    return t.numel() * t.dtype.itemsize


def _static_tensor(val) -> bool:
    return isinstance(val, torch.Tensor) and all(isinstance(s, int) for s in val.shape)


def _can_fold(node: torch.fx.Node, constants: dict) -> bool:
    """Whether `node` folds, given `constants` (graph node -> its real tensor), by the
    rule of the module docstring (the result's size is checked before it is computed)."""
    op = node.target
    if node.op != "call_function" or not isinstance(op, torch._ops.OpOverload) \
            or op.namespace != "aten":
        return False
    schema = op._schema
    if schema.is_mutable or torch.Tag.nondeterministic_seeded in op.tags \
            or schema.name in _UNINITIALIZED:
        return False
    inputs = node.all_input_nodes
    if any(n not in constants for n in inputs):
        return False
    if not node.users or any(u.op == "output" for u in node.users):
        return False
    val = node.meta.get("val")
    if not _static_tensor(val):
        return False
    size = _nbytes(val)
    return size <= sum(_nbytes(constants[n]) for n in inputs) or size <= MAX_GROWTH_BYTES


def _evaluate(node: torch.fx.Node, constants: dict) -> torch.Tensor | None:
    """The node's result on the real constants, or None when torch cannot compute it
    here as the graph says (then the call simply stays in the program)."""
    args, kwargs = torch.fx.node.map_arg((node.args, node.kwargs), lambda n: constants[n])
    try:
        with torch.no_grad():
            result = node.target(*args, **kwargs)
    except (RuntimeError, TypeError, ValueError, NotImplementedError):
        return None
    val = node.meta["val"]
    if not isinstance(result, torch.Tensor) or result.dtype != val.dtype \
            or list(result.shape) != list(val.shape):
        return None
    # An owned contiguous copy: views of a parameter must not alias it.
    return result.detach().clone(memory_format=torch.contiguous_format)


def fold_constants(ep: torch.export.ExportedProgram) -> tuple[str, ...]:
    """Folds the constant calls of `ep` in place and drops the constants nothing reads
    (see the module docstring); returns the names of the calls removed from the graph,
    in graph order."""
    graph = ep.graph
    constants = constant_tensors(ep)

    folded = []
    for node in graph.nodes:
        if _can_fold(node, constants):
            result = _evaluate(node, constants)
            if result is not None:
                constants[node] = result
                folded.append(node)
    folded_set = set(folded)
    # Shape checks of constants were settled when tracing (the builder skips every
    # shape check): they must not keep a constant in the program.
    for node in list(graph.nodes):
        if node.target in IGNORED_TARGETS and not node.users and node.all_input_nodes \
                and all(n in constants for n in node.all_input_nodes):
            graph.erase_node(node)

    # Each folded value that a remaining call reads becomes a lifted constant. It goes
    # right after the constant it was computed from (its first input, followed back to
    # a placeholder), so the segment keeps the model's order: a Linear's transposed
    # weight takes the place of the weight. input_specs follow the placeholders.
    source = {node: node for node in constants}
    for node in folded:
        source[node] = source[node.all_input_nodes[0]] if node.all_input_nodes else None
    after = {}                           # placeholder -> the last constant put after it
    for node in folded:
        if all(u in folded_set for u in node.users):
            continue
        placeholder = add_constant(ep, f"folded_{node.name}", constants[node],
                                   after=after.get(source[node], source[node]))
        placeholder.meta.update({k: node.meta[k] for k in ("val", "stack_trace")
                                 if k in node.meta})
        node.replace_all_uses_with(placeholder, delete_user_cb=lambda u: u not in folded_set)
        after[source[node]] = placeholder
    for node in reversed(folded):
        graph.erase_node(node)

    # Constants nothing reads (any more) are not part of the program.
    drop_unused_constants(ep)
    ep.graph_module.recompile()
    return tuple(n.name for n in folded)
