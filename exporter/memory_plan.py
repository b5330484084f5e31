"""Lifetime-based memory planning: tensors with sizes and live ranges -> arena offsets.

Input: one Buffer per planned (non-constant) tensor, with its byte size at the upper
bound of its dynamic dims and the inclusive range of instruction indices in which it is
live. Output: a MemoryPlan with one offset per buffer in a single arena (arena 0), the
arena size, and what the arena would need without reuse.

The algorithm is greedy: buffers are placed largest first, each at the lowest aligned
offset where it overlaps in memory with no already placed buffer whose lifetime overlaps
its own. Two buffers whose live ranges share an instruction never share a byte, so an
out tensor never aliases an input of the same call (kernels need not be in-place safe).

Pure functions only; `live_ranges` derives the ranges from an instruction list.
"""

from dataclasses import dataclass

ALIGNMENT = 16


@dataclass(frozen=True)
class Buffer:
    """A tensor to place: `key` names it; live over instructions start..end inclusive."""
    key: int
    size: int
    start: int
    end: int


@dataclass(frozen=True)
class MemoryPlan:
    offsets: dict[int, int]   # Buffer.key -> byte offset in arena 0
    arena_size: int           # bytes arena 0 needs (a multiple of the alignment)
    unshared_size: int        # bytes if no two buffers shared memory

    @property
    def arena_sizes(self) -> list[int]:
        return [self.arena_size]


def align_up(n: int, alignment: int = ALIGNMENT) -> int:
    return (n + alignment - 1) // alignment * alignment


def _lifetimes_overlap(a: Buffer, b: Buffer) -> bool:
    return a.start <= b.end and b.start <= a.end


def plan_memory(buffers: list[Buffer], alignment: int = ALIGNMENT) -> MemoryPlan:
    """Places every buffer in arena 0; see the module docstring for the rule."""
    keys = [b.key for b in buffers]
    if len(set(keys)) != len(keys):
        raise ValueError("buffer keys must be unique")
    placed: list[tuple[Buffer, int]] = []
    offsets: dict[int, int] = {}
    for buf in sorted(buffers, key=lambda b: (-b.size, b.start, b.key)):
        size = align_up(buf.size, alignment)
        busy = sorted((off, off + align_up(other.size, alignment))
                      for other, off in placed if _lifetimes_overlap(buf, other))
        offset = 0
        for lo, hi in busy:
            if offset + size <= lo:
                break
            offset = max(offset, hi)
        offsets[buf.key] = offset
        placed.append((buf, offset))
    arena = max((off + align_up(b.size, alignment) for b, off in placed), default=0)
    unshared = sum(align_up(b.size, alignment) for b in buffers)
    return MemoryPlan(offsets=offsets, arena_size=arena, unshared_size=unshared)


def live_ranges(instruction_args: list[list[int]], tensors: set[int], inputs: list[int],
                outputs: list[int]) -> dict[int, tuple[int, int]]:
    """Inclusive live range of each id in `tensors` over the instruction list.

    `instruction_args[i]` lists the tensor ids instruction i reads or writes. A tensor
    lives from its first use (graph inputs: from instruction 0) to its last use (graph
    outputs: to the last instruction). A tensor no instruction touches lives at 0..0.
    """
    last = max(len(instruction_args) - 1, 0)
    first_use: dict[int, int] = {}
    last_use: dict[int, int] = {}
    for i, args in enumerate(instruction_args):
        for t in args:
            if t in tensors:
                first_use.setdefault(t, i)
                last_use[t] = i
    ranges = {}
    for t in tensors:
        start = first_use.get(t, 0)
        end = last_use.get(t, start)
        if t in inputs:
            start = 0
        if t in outputs:
            end = last
        ranges[t] = (start, max(start, end))
    return ranges


def check_plan(buffers: list[Buffer], plan: MemoryPlan) -> None:
    """Raises AssertionError if two live-overlapping buffers overlap in memory."""
    for i, a in enumerate(buffers):
        oa = plan.offsets[a.key]
        assert oa % ALIGNMENT == 0 and oa + a.size <= plan.arena_size, a
        for b in buffers[i + 1:]:
            ob = plan.offsets[b.key]
            if a.size and b.size and _lifetimes_overlap(a, b):
                assert oa + a.size <= ob or ob + b.size <= oa, (a, oa, b, ob)
