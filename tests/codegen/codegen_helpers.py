"""Test helpers: small programs of the program model (built without torch), goldens."""

import os

from program import model

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")


def tensor(dtype: str, dim_order: list[int]) -> model.Tensor:
    """A program value: a planned tensor."""
    return model.Tensor(dtype, [2] * len(dim_order), dim_order)


def scalar(kind: str, value) -> model.Value:
    return {"Int": model.Int, "Double": model.Double, "Bool": model.Bool}[kind](value)


NONE = None


def program(values: list, calls: list[tuple[str, list[int]]],
            name: str = "forward") -> model.Program:
    """A one-method program calling each (operator, value ids) in order."""
    operators = sorted({op for op, _ in calls})
    return model.Program(1, [model.Method(
        name, values,
        operators=[model.Operator(op.partition(".")[0], op.partition(".")[2])
                   for op in operators],
        instructions=[model.KernelCall(operators.index(op), args) for op, args in calls])])
