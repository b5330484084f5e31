"""Checks on a program (program/model.py) written from the contract (docs/internals.md),
independent of the exporter's own code, shared by several test files."""

from program import model


def assert_plan_is_safe(method: model.Method) -> None:
    """No two planned tensors that are live at one instruction share a byte, and every
    planned tensor fits in its arena."""
    instrs = [model.tensor_ids(method.values, i.args) for i in method.instructions]
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
        if isinstance(t, model.Tensor) and t.allocation is not None:
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
