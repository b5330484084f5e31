"""Buffers a model writes in place (a KV cache, a step counter) -> how the program keeps them.

Input: a core-ATen ExportedProgram. Output: a BufferWrites saying, per mutated buffer, which
graph node holds its value after a call, and which of those nodes can write the buffer's
memory directly. program_builder.py then

- stores the buffer's initial value in the constant segment (`Tensor.initial`) and plans
  the buffer itself for the whole method, so it persists from one execute() to the next
  (the runtime copies the initial value in at load and on Method::reset_state());
- plans an in-place node's out tensor at the buffer's own offset, so `cache[:, :, pos] = k`
  costs the update alone;
- for any other new value, appends a copy into the buffer after the last instruction,
  which is correct whatever the op (`self.count += 1`).
"""

from dataclasses import dataclass

import torch
from torch.export.graph_signature import InputKind, OutputKind

from exporter.errors import ExportError

# Ops whose kernel copies `self` to `out` and then writes part of it, and skips the copy
# when out is self: their out may be the buffer's own memory.
IN_PLACE_OPS = (torch.ops.aten.index_put.default,)


@dataclass(frozen=True)
class BufferWrites:
    placeholders: dict[str, torch.fx.Node]   # buffer target -> its placeholder
    new_values: dict[str, object]            # buffer target -> its value after a call
    in_place: dict[torch.fx.Node, str]       # node -> the buffer whose memory it writes


def find_buffer_writes(ep: torch.export.ExportedProgram) -> BufferWrites:
    """The mutated buffers of `ep` and how each is written (see the module docstring).
    Raises ExportError for a model that writes to one of its inputs."""
    outputs = ep.graph.find_nodes(op="output")[0].args[0]
    new_values = {}
    for spec, value in zip(ep.graph_signature.output_specs, outputs, strict=True):
        if spec.kind == OutputKind.BUFFER_MUTATION:
            new_values[spec.target] = value
        elif spec.kind != OutputKind.USER_OUTPUT:
            raise ExportError(
                f"output '{spec.arg.name}' is a {spec.kind.name} (the model writes to "
                f"'{spec.target}' in place); Tailor programs keep state in registered "
                "buffers only: register it with self.register_buffer(...) or return the "
                "new value instead")
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
    by_target = {spec.target: node for spec, node in
                 zip(ep.graph_signature.input_specs, placeholders, strict=True)
                 if spec.kind == InputKind.BUFFER and spec.target in new_values}
    in_place = {}
    for target, value in new_values.items():
        buffer = by_target[target]
        if (isinstance(value, torch.fx.Node) and value.target in IN_PLACE_OPS
                # The write is the old value's only reader, so no order of the
                # instructions (delegation reorders them) can read it after the write.
                and value.args[0] is buffer and len(buffer.users) == 1):
            in_place[value] = target
    return BufferWrites(by_target, new_values, in_place)
