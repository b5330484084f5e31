"""Several methods -> one program: a shared constant segment and constant methods.

Input: the methods program_builder.py built (each a method dict with its own constant
segment) and the constant methods export() was given (name -> a number, a bool or a list
of ints). Output: the program's method list and ONE segment in which bytes that several
methods hold (the weights every method of a module reads, a buffer's initial value) are
stored once, every `constant` and `initial` reference moved to it.

A constant method takes no input, runs no instruction and returns its value: an int,
float or bool as one output, a list as one output per item (get_eos_ids -> 2 outputs for
two end ids), the way an application reads generation metadata (get_max_seq_len, ...).
"""

import math

import torch

from exporter.constant_segment import pack_constants
from exporter.errors import ExportError
from exporter.scalar_types import SCALAR_TYPE_NAMES

_ITEM_SIZES = {name: dtype.itemsize for dtype, name in SCALAR_TYPE_NAMES.items()}
_REFS = ("constant", "initial")


def constant_method(name: str, value) -> dict:
    """The method dict of constant method `name` returning `value`."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    values = []
    for item in items:
        if isinstance(item, bool):
            values.append({"val_type": "Bool", "val": {"value": item}})
        elif isinstance(item, int):
            values.append({"val_type": "Int", "val": {"value": item}})
        elif isinstance(item, float) and not isinstance(value, (list, tuple)):
            values.append({"val_type": "Double", "val": {"value": item}})
        else:
            raise ExportError(f"constant method '{name}': {value!r} is not an int, float, "
                              "bool or list of ints; give one of those")
    return {"name": name, "values": values, "inputs": [], "outputs": list(range(len(values))),
            "operators": [], "delegates": [], "instructions": [], "arena_sizes": []}


def _nbytes(tensor: dict) -> int:
    return math.prod(tensor["sizes"]) * _ITEM_SIZES[tensor["scalar_type"]]


def share_segment(built: list[tuple[dict, bytes]], slack: int) -> tuple[list[dict], bytes]:
    """Repacks the (method, segment) pairs into one segment (identical bytes once) and
    points every reference at it; `slack` zero bytes end it (a backend's over-read)."""
    pieces, refs = [], []
    for method, segment in built:
        for value in method["values"]:
            tensor = value.get("val") if value.get("val_type") == "Tensor" else None
            for field in _REFS:
                if tensor is not None and field in tensor:
                    at = tensor[field]["offset"]
                    pieces.append((len(refs), segment[at:at + _nbytes(tensor)]))
                    refs.append(tensor[field])
    packed = pack_constants(pieces)
    for key, ref in enumerate(refs):
        ref["offset"] = packed.offsets.get(key, 0)
    data = packed.data + b"\0" * slack if packed.data else b""
    return [method for method, _ in built], data


class BoundMethod(torch.nn.Module):
    """`module.<name>` as a forward torch.export can trace; its parameters and buffers
    stay the module's own (named under `module.`)."""

    def __init__(self, module: torch.nn.Module, name: str):
        super().__init__()
        if not callable(getattr(module, name, None)):
            raise ExportError(f"methods: the module ({type(module).__name__}) has no method "
                              f"'{name}'; name one of its methods")
        self.module = module
        self.method_name = name

    def forward(self, *args):
        return getattr(self.module, self.method_name)(*args)
