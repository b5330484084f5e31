"""Reading and adding the constants of an ExportedProgram, for the passes that rewrite it.

A constant is a placeholder whose input spec is a parameter, a buffer the model does not
write (a mutated one is state, exporter/mutable_buffers.py) or a lifted tensor constant. New constants are lifted tensor constants placed among the others, so the
placeholders keep torch.export's order (constants first, then user inputs) and
input_specs stay parallel to them.
"""

import torch
from torch.export.graph_signature import InputKind, InputSpec, OutputKind, TensorArgument

CONSTANT_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)


def mutated_buffers(ep: torch.export.ExportedProgram) -> set[str]:
    """Targets of the buffers `ep` writes in place (its BUFFER_MUTATION outputs)."""
    return {spec.target for spec in ep.graph_signature.output_specs
            if spec.kind == OutputKind.BUFFER_MUTATION}


def constant_tensors(ep: torch.export.ExportedProgram) -> dict:
    """Placeholder node -> its real tensor, for every constant of `ep`."""
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
    mutated = mutated_buffers(ep)
    found = {}
    for spec, node in zip(ep.graph_signature.input_specs, placeholders, strict=True):
        if spec.kind in CONSTANT_KINDS and spec.target not in mutated:
            found[node] = (ep.state_dict[spec.target] if spec.target in ep.state_dict
                           else ep.constants[spec.target])
    return found


def _unique_target(ep: torch.export.ExportedProgram, base: str) -> str:
    taken = set(ep.state_dict) | set(ep.constants)
    name, i = base, 0
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    return name


def add_constant(ep: torch.export.ExportedProgram, base: str, value: torch.Tensor,
                 after: torch.fx.Node | None = None) -> torch.fx.Node:
    """Lifts `value` into `ep` as a new constant named after `base`, placed right after
    placeholder `after` (None: after the last constant); returns its placeholder."""
    graph = ep.graph
    specs = ep.graph_signature.input_specs
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if after is None:
        constants = [n for s, n in zip(specs, placeholders) if s.kind in CONSTANT_KINDS]
        after = constants[-1] if constants else None
    target = _unique_target(ep, base)
    if after is None:
        with graph.inserting_before(placeholders[0] if placeholders else None):
            node = graph.placeholder("c_" + target)
        index = 0
    else:
        with graph.inserting_after(after):
            node = graph.placeholder("c_" + target)
        index = placeholders.index(after) + 1
    node.meta["val"] = value
    specs.insert(index, InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(name=node.name),
                                  target))
    ep.constants[target] = value
    return node


def drop_unused_constants(ep: torch.export.ExportedProgram) -> None:
    """Removes the constants no node reads any more, with their tensors."""
    graph = ep.graph
    specs = ep.graph_signature.input_specs
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    mutated = mutated_buffers(ep)
    dropped = set()
    for i in reversed(range(len(specs))):
        if (specs[i].kind in CONSTANT_KINDS and not placeholders[i].users
                and specs[i].target not in mutated):
            graph.erase_node(placeholders[i])
            dropped.add(specs[i].target)
            del specs[i]
    for target in dropped - {spec.target for spec in specs}:
        (ep.state_dict if target in ep.state_dict else ep.constants).pop(target)
