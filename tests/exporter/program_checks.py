"""Checks on a program (program/model.py) written from the contract (docs/internals.md),
independent of the exporter's own code, shared by several test files."""

from program import model


def _view_roots(method: model.Method) -> dict[int, int]:
    """out -> input of each view_copy kernel call whose out the plan put on its input's
    very bytes (allowed by the contract), followed to the first tensor of a chain."""
    roots = {}
    for instruction in method.instructions:
        if not isinstance(instruction, model.KernelCall):
            continue
        if method.operators[instruction.op_index].qualified_name != "aten::view_copy.out":
            continue
        source, out = instruction.args[0], instruction.args[2]
        a, b = method.values[source], method.values[out]
        if a.allocation is not None and a.allocation == b.allocation and a.nbytes == b.nbytes:
            roots[out] = roots.get(source, source)
    return roots


def assert_plan_is_safe(method: model.Method) -> None:
    """No two planned tensors that are live at one instruction share a byte, but a view
    planned on its input's very bytes (one tensor for this check, live while either is),
    and every planned tensor fits in its arena."""
    roots = _view_roots(method)
    instrs = [[roots.get(t, t) for t in model.tensor_ids(method.values, i.args)]
              for i in method.instructions]
    last = len(instrs) - 1
    live = {}
    for i, ids in enumerate(instrs):
        for t in ids:
            lo, hi = live.get(t, (i, i))
            live[t] = (min(lo, i), max(hi, i))
    for t in method.inputs:
        live[t] = (0, live.get(t, (0, 0))[1])
    for t in method.outputs:
        live[t] = (live.get(t, (0, 0))[0], last)
    planned = {}
    for vid, t in enumerate(method.values):
        if isinstance(t, model.Tensor) and t.allocation is not None and vid not in roots:
            off = t.allocation.offset
            assert t.allocation.arena == 0
            assert off % 16 == 0
            assert off + t.nbytes <= method.arena_sizes[0]
            planned[vid] = (off, off + t.nbytes)
    ids = sorted(planned)
    for n, a in enumerate(ids):
        for b in ids[n + 1:]:
            (la, ha), (lb, hb) = live.get(a, (0, 0)), live.get(b, (0, 0))
            if la <= hb and lb <= ha:
                (sa, ea), (sb, eb) = planned[a], planned[b]
                assert ea <= sb or eb <= sa, f"values {a} and {b} are live together and overlap"
