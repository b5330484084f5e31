"""Training-mode batch norm with running statistics -> the in-place kernel's call.

torch.export emits `_native_batch_norm_legit_functional` for a batch norm in training mode
with running statistics (F.batch_norm(x, self.mean, self.var, training=True), a BatchNorm
module whose forward passes training=True): it returns the new running statistics, and
the graph signature writes them back to the model's buffers. That op has no out variant;
the kernel libraries serve `_native_batch_norm_legit.out`, which updates running_mean and
running_var in place (as ExecuTorch's portable kernel does).

The rewrite: each functional call becomes `_native_batch_norm_legit` on the same
arguments, and its results 3 and 4 (the new statistics) become the tensors it updated:

- the buffer itself when it is a buffer the program writes back and this call is its only
  reader (no other op can see the old or the new value out of order), so the kernel
  updates the buffer's memory and nothing is copied;
- otherwise a clone of the statistic, which the kernel updates and program_builder.py
  copies into the buffer after the call (or the program returns).

The new statistics may only be written back or returned: an op of the same call reading
them would depend on the batch norm through memory the kernel writes in place, which the
instruction order (delegation reorders calls by the values they produce) does not see;
the export stops there, naming the node.

    count = lower_batch_norm_training(ep)   # 1 for a module with one such batch norm
"""

import operator

import torch
from torch.export.graph_signature import InputKind, OutputKind

from exporter.errors import ExportError
from exporter.node_source import describe

aten = torch.ops.aten
FUNCTIONAL = aten._native_batch_norm_legit_functional.default


def _written_buffers(ep: torch.export.ExportedProgram) -> set[torch.fx.Node]:
    """The placeholders of the buffers `ep` writes back."""
    written = {s.target for s in ep.graph_signature.output_specs
               if s.kind == OutputKind.BUFFER_MUTATION}
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
    return {node for spec, node in zip(ep.graph_signature.input_specs, placeholders)
            if spec.kind == InputKind.BUFFER and spec.target in written}


def lower_batch_norm_training(ep: torch.export.ExportedProgram) -> int:
    """Rewrites every functional batch norm of `ep` in place (see the module docstring);
    returns how many."""
    graph = ep.graph
    written = _written_buffers(ep)
    count = 0
    for node in list(graph.find_nodes(op="call_function", target=FUNCTIONAL)):
        args = list(node.args)
        for user in node.users:
            if user.target is operator.getitem and user.args[1] >= 3 and any(
                    u.op != "output" for u in user.users):
                readers = ", ".join(u.name for u in user.users)
                raise ExportError(
                    f"{describe(node)}: a training-mode batch norm whose updated running "
                    f"statistics are read in the same call ({readers}); Tailor updates "
                    "them in place, so read them in the next call (or return them)")
        updated = []
        with graph.inserting_before(node):
            for i in (3, 4):  # running_mean, running_var
                stat = args[i]
                if not (stat in written and len(stat.users) == 1):
                    clone = graph.call_function(aten.clone.default, (stat,))
                    clone.meta["val"] = stat.meta["val"].clone()
                    stat = args[i] = clone
                updated.append(stat)
            call = graph.call_function(aten._native_batch_norm_legit.default, tuple(args),
                                       dict(node.kwargs))
        call.meta = dict(node.meta)
        call.meta["val"] = tuple(node.meta["val"][:3])
        for user in list(node.users):
            index = user.args[1]
            if user.target is operator.getitem and index >= 3:
                user.replace_all_uses_with(updated[index - 3])
                graph.erase_node(user)
            else:
                user.replace_input_with(node, call)
        graph.erase_node(node)
        count += 1
    if count:
        ep.graph_module.recompile()
    return count
