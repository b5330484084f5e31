"""Where each tensor of a lowered method lives: the constant segment or arena 0.

place_tensors() packs constants and mutable buffers' initial values into the constant
segment (constant_segment.py) and plans every other tensor into arena 0 at its upper
bound (memory_plan.py): a mutable buffer lives for the whole method, an out tensor that
writes a buffer in place takes the buffer's bytes, and a view_copy whose out can be its
input's bytes shares them (the kernel then skips its copy).
"""

from dataclasses import dataclass

import torch

from exporter.constant_segment import pack_constants
from exporter.memory_plan import Buffer, live_ranges, plan_memory
from program import model
from program.model import Allocation, ConstantRef


@dataclass
class TensorData:
    dtype: torch.dtype
    sizes: list[int]        # upper bounds
    tensor: model.Tensor    # the value, placed by place_tensors()
    constant: bytes | None = None
    initial: bytes | None = None   # a mutable buffer's value at load

    @property
    def nbytes(self) -> int:
        n = self.dtype.itemsize
        for s in self.sizes:
            n *= s
        return n


def _view_aliases(tensors: dict, buffers: set, aliases: dict, inputs: list[int],
                  outputs: list[int], instructions: list) -> dict[int, int]:
    """out -> the tensor whose bytes it shares, for each view_copy kernel call whose
    out can be its input's bytes: a reshape of contiguous data is those bytes (the
    kernel skips its copy when both are one tensor). Neither may be a graph input or
    output (a caller may point those at its own memory), a constant or a mutable
    buffer; both take the same bytes at their planned sizes. A view of a view shares
    the first one's bytes."""
    def plain(vid):
        t = tensors.get(vid)
        return (t is not None and t.constant is None and t.initial is None
                and t.nbytes > 0 and vid not in buffers and vid not in aliases
                and vid not in inputs and vid not in outputs)
    roots: dict[int, int] = {}
    for ins in instructions:
        if not ins.is_kernel_call("aten::view_copy.out") or len(ins.args) != 3:
            continue
        source, out = ins.args[0], ins.args[2]
        root = roots.get(source, source)
        if plain(root) and plain(out) and \
                tensors[out].nbytes == tensors[root].nbytes:
            roots[out] = root
    return roots


def place_tensors(values: list, tensors: dict, buffers: set, aliases: dict, inputs: list[int],
                  outputs: list[int], instructions: list):
    """Packs the constants into the segment and plans every other tensor into arena 0:
    sets each tensor value's constant/initial reference or allocation. (MemoryPlan, the
    segment bytes)."""
    constants = [(vid, t.constant if t.constant is not None else t.initial)
                 for vid, t in tensors.items()
                 if t.constant is not None or t.initial is not None]
    segment = pack_constants(constants)
    for vid, offset in segment.offsets.items():
        field = "initial" if vid in buffers else "constant"
        setattr(tensors[vid].tensor, field, ConstantRef(0, offset))

    views = _view_aliases(tensors, buffers, aliases, inputs, outputs, instructions)
    planned = {vid for vid, t in tensors.items()
               if t.constant is None and t.nbytes > 0 and vid not in aliases
               and vid not in views}
    # A view's uses are its bytes' uses: they live until the last use of either.
    uses = [[views.get(t, t) for t in model.tensor_ids(values, ins.args)]
            for ins in instructions]
    # Mutable buffers live from the first instruction to the last, so nothing else
    # ever shares their bytes and they keep their value between calls.
    ranges = live_ranges(uses, planned, inputs + sorted(buffers),
                         outputs + sorted(buffers))
    plan = plan_memory([Buffer(vid, tensors[vid].nbytes, *ranges[vid])
                        for vid in sorted(planned)])
    offsets = dict(plan.offsets)
    offsets.update({out: plan.offsets[buf] for out, buf in aliases.items()
                    if buf in plan.offsets})
    offsets.update({out: plan.offsets[root] for out, root in views.items()})
    for vid, offset in offsets.items():
        tensors[vid].tensor.allocation = Allocation(0, offset)
    return plan, segment.data
