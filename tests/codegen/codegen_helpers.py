"""Test helpers: small programs in flatbuffer JSON form (built without torch), goldens."""

import os

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")


def tensor(dtype: str, dim_order: list[int]) -> dict:
    """A program value: a planned tensor (flatbuffer JSON form)."""
    return {"val_type": "Tensor", "val": {"scalar_type": dtype, "sizes": [2] * len(dim_order),
                                          "dim_order": dim_order}}


def scalar(kind: str, value) -> dict:
    return {"val_type": kind, "val": {"value": value}}


NONE = {"val_type": "NONE"}


def program(values: list, calls: list[tuple[str, list[int]]], name: str = "forward") -> dict:
    """A one-method program calling each (operator, value ids) in order."""
    operators = sorted({op for op, _ in calls})
    return {"version": 1, "methods": [{
        "name": name, "values": values, "inputs": [], "outputs": [],
        "operators": [{"name": op.partition(".")[0], "overload": op.partition(".")[2]}
                      for op in operators],
        "instructions": [{"instr_type": "KernelCall",
                          "instr": {"op_index": operators.index(op), "args": args}}
                         for op, args in calls],
        "arena_sizes": []}]}
