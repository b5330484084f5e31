"""A traced method -> which of its outputs no torch run can reproduce.

Those hold numbers drawn by random operators (rand, randn, dropout in training, bernoulli:
the ops torch tags nondeterministic_seeded) or left unset (empty, empty_permuted), or
anything computed from them. Tailor draws its own random numbers (runtime/kernel/random.h),
so the self-check compares such outputs with eager's for shape and dtype only
(exporter/io_files.py names their files drawn_<i>.npy; README.md, Random operators).
"""

import torch

_UNSET = frozenset({"aten::empty", "aten::empty_like", "aten::empty_permuted",
                    "aten::empty_strided", "aten::new_empty", "aten::new_empty_strided"})
# Ops that read only the shape (and dtype) of their first argument, not its values.
_SHAPE_ONLY_FIRST = frozenset({"aten::full_like", "aten::copy", "aten::empty_like",
                               "aten::rand_like", "aten::randn_like"})


def _draws(node: torch.fx.Node) -> bool:
    op = node.target
    if not isinstance(op, torch._ops.OpOverload):
        return False
    name = op._schema.name
    if name == "aten::native_dropout":  # eval (train=False) draws nothing
        train = node.args[2] if len(node.args) > 2 else node.kwargs.get("train")
        return train is not False
    return torch.Tag.nondeterministic_seeded in op.tags or name in _UNSET


def _value_inputs(node: torch.fx.Node) -> list:
    op = node.target
    inputs = list(node.all_input_nodes)
    if isinstance(op, torch._ops.OpOverload) and op._schema.name in _SHAPE_ONLY_FIRST \
            and node.args and isinstance(node.args[0], torch.fx.Node):
        inputs = [n for n in inputs if n is not node.args[0]] + \
            [a for a in node.args[1:] if a is node.args[0]]
    return inputs


def drawn_outputs(ep: torch.export.ExportedProgram) -> tuple[int, ...]:
    """The indices of the user outputs of `ep` whose values are drawn (see above)."""
    drawn = set()
    for node in ep.graph.nodes:
        if node.op == "call_function" and (_draws(node) or
                                           any(n in drawn for n in _value_inputs(node))):
            drawn.add(node)
    user = set(ep.graph_signature.user_outputs)
    output = next(n for n in ep.graph.nodes if n.op == "output")
    leaves = [leaf for leaf in output.args[0]
              if isinstance(leaf, torch.fx.Node) and leaf.name in user]
    return tuple(i for i, leaf in enumerate(leaves) if leaf in drawn)
