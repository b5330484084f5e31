"""Checks on a program dict written from the contract (docs/internals.md), independent
of the exporter's own code, shared by several test files."""

import numpy as np

ITEMSIZE = {"Byte": 1, "Char": 1, "Short": 2, "Int": 4, "Long": 8, "Half": 2,
            "Float": 4, "Double": 8, "Bool": 1, "BFloat16": 2}


def tensor_nbytes(t: dict) -> int:
    return int(np.prod(t["sizes"], dtype=np.int64)) * ITEMSIZE[t["scalar_type"]]


def tensors_of(method: dict, args: list[int]) -> list[int]:
    found = []
    for a in args:
        v = method["values"][a]
        if v.get("val_type") == "Tensor":
            found.append(a)
        elif v.get("val_type") in ("TensorList", "OptionalTensorList"):
            found += [i for i in v["val"]["items"] if i >= 0]
    return found


def assert_plan_is_safe(method: dict) -> None:
    """No two planned tensors that are live at one instruction share a byte, and every
    planned tensor fits in its arena."""
    instrs = [tensors_of(method, i["instr"]["args"]) for i in method["instructions"]]
    last = len(instrs) - 1
    live = {}
    for i, ids in enumerate(instrs):
        for t in ids:
            lo, hi = live.get(t, (i, i))
            live[t] = (min(lo, i), max(hi, i))
    for t in method["inputs"]:
        live[t] = (0, live.get(t, (0, 0))[1])
    for t in method["outputs"]:
        live[t] = (live.get(t, (0, 0))[0], last)
    planned = {}
    for vid, v in enumerate(method["values"]):
        if v.get("val_type") == "Tensor" and "allocation" in v["val"]:
            t = v["val"]
            off = t["allocation"]["offset"]
            assert t["allocation"]["arena"] == 0
            assert off % 16 == 0
            assert off + tensor_nbytes(t) <= method["arena_sizes"][0]
            planned[vid] = (off, off + tensor_nbytes(t))
    ids = sorted(planned)
    for n, a in enumerate(ids):
        for b in ids[n + 1:]:
            (la, ha), (lb, hb) = live.get(a, (0, 0)), live.get(b, (0, 0))
            if la <= hb and lb <= ha:
                (sa, ea), (sb, eb) = planned[a], planned[b]
                assert ea <= sb or eb <= sa, f"values {a} and {b} are live together and overlap"
