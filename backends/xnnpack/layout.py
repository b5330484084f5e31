"""Which tensor values of a method are channels-last inside XNNPACK's delegates.

XNNPACK's window ops are NHWC, torch's tensors NCHW. Each 4-d (and, for 1-d convolutions,
3-d) tensor value gets one layout: values connected through elementwise ops form a class,
and a class holding the input or output of a convolution, pooling, resize or PReLU is
channels-last inside every delegate (the runtime transposes it where it enters or leaves
one). A call XNNPACK could run but that cannot keep to its tensors' layouts (XNNPACK 2022
has no transpose) gets a reason in Layouts.reasons.
"""

import math
from dataclasses import dataclass

from backends.xnnpack import prelu
from backends.xnnpack.support import ELEMENTWISE, NHWC, RESHAPE, SQUEEZE
from exporter.delegation import LoweredMethod

_NOT_CHANNELS_LAST = ("reads or writes a tensor that is channels-last inside XNNPACK "
                      "(XNNPACK 2022 has no transpose)")


def trivially_channels_last(sizes: list) -> bool:
    """Whether an NC... tensor has the same memory order channels-last: its channels or
    all its spatial dims are 1 (sizes are upper bounds; 1 is exact)."""
    return len(sizes) in (3, 4) and (sizes[1] == 1 or math.prod(sizes[2:]) == 1)


def padded_channels_last(sizes: list, rank: int):
    """`sizes` padded with leading 1s to `rank`, if that is trivially channels-last."""
    padded = [1] * (rank - len(sizes)) + list(sizes)
    return padded if trivially_channels_last(padded) else None


def reshape_keeps_memory(a: list, a_cl: bool, b: list, b_cl: bool) -> bool:
    """Whether reshaping `a` to `b` moves no element when each is channels-last or not:
    both lie in logical order, or both are channels-last with the same batch and
    channels and the same spatial dims but for 1s (an unsqueeze of a 1-d signal)."""
    if (not a_cl or trivially_channels_last(a)) and (not b_cl or trivially_channels_last(b)):
        return True
    if not (a_cl and b_cl):
        return False
    return a[:2] == b[:2] and [s for s in a[2:] if s != 1] == [s for s in b[2:] if s != 1]


@dataclass(frozen=True)
class Layouts:
    """Channels-last values of one method and the calls that cannot keep to them."""
    method: LoweredMethod
    channels_last: frozenset
    reasons: dict            # call index -> why its layouts rule it out


def plan_layouts(m: LoweredMethod, claimable) -> Layouts:
    """Which tensors are channels-last, and why a call of `claimable` (indices of calls
    XNNPACK could run) cannot keep to it."""
    parent: dict = {}

    def find(v):
        while parent.setdefault(v, v) != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    seeds = []
    for i in claimable:
        call = m.calls[i]
        x, out = call.args[0], call.args[call.num_inputs]
        if nhwc(m, i):
            x = call.args[1] if call.op == prelu.WHERE else x
            seeds.append(x)
            if len(m.tensor(out).sizes) == len(m.tensor(x).sizes):
                seeds.append(out)
        elif call.op in ELEMENTWISE:
            rank = len(m.tensor(out).sizes)
            for v in tensor_reads(m, i):
                if not m.is_constant(v) and len(m.tensor(v).sizes) == rank:
                    parent[find(v)] = find(out)
    roots = {find(v) for v in seeds}
    channels_last = {v for v in list(parent) + seeds if find(v) in roots}

    reasons = {}
    for i in claimable:
        why = _layout_reason(m, i, channels_last)
        if why is not None:
            reasons[i] = why
    return Layouts(m, frozenset(channels_last), reasons)


def _layout_reason(m: LoweredMethod, i: int, channels_last: set):
    call = m.calls[i]
    op, args = call.op, call.args
    out = args[call.num_inputs]
    if nhwc(m, i):
        x = args[1] if op == prelu.WHERE else args[0]
        if m.is_constant(x) and not trivially_channels_last(m.tensor(x).sizes):
            return "its input is a constant (XNNPACK would need it channels-last)"
        return None
    if op in RESHAPE or op in SQUEEZE:
        a, b = m.tensor(args[0]).sizes, m.tensor(out).sizes
        if not reshape_keeps_memory(a, args[0] in channels_last, b, out in channels_last):
            return "a reshape of a tensor that is channels-last inside XNNPACK (XNNPACK " \
                   "2022 has no transpose)"
        return None
    if op not in ELEMENTWISE:  # softmax, linear layers: plain layout only
        if any(v in channels_last for v in tensor_reads(m, i) + [out]):
            return _NOT_CHANNELS_LAST
        return None
    if out not in channels_last:
        if any(v in channels_last for v in tensor_reads(m, i)):
            return "mixes channels-last and plain operands"
        return None
    rank = len(m.tensor(out).sizes)
    for v in tensor_reads(m, i):
        if v in channels_last:
            continue
        if m.tensor(v).dynamic or padded_channels_last(m.tensor(v).sizes, rank) is None:
            return "an operand that is not channels-last like the others (XNNPACK 2022 " \
                   "has no transpose)"
    return None


def nhwc(m: LoweredMethod, i: int) -> bool:
    """Whether XNNPACK runs call `i` (one it can run) on channels-last tensors only: a
    window op, a resize, a PReLU over [N, C, L] or [N, C, H, W] (channels last)."""
    call = m.calls[i]
    if call.op == prelu.WHERE:
        return len(m.tensor(call.args[1]).sizes) in (3, 4)
    return call.op in NHWC


def tensor_reads(m: LoweredMethod, i: int) -> list:
    return [v for v in m.reads(i) if m.tensor(v) is not None]
