"""Several methods -> one program: a shared constant segment and constant methods.

Input: the methods program_builder.py built (each a program.model.Method with its own constant
segment) and the constant methods export() was given (name -> a number, a bool or a list
of ints). Output: the program's method list and ONE segment in which bytes that several
methods hold (the weights every method of a module reads, a buffer's initial value) are
stored once, every `constant` and `initial` reference moved to it.

A constant method takes no input, runs no instruction and returns its value: an int,
float or bool as one output, a list as one output per item (get_eos_ids -> 2 outputs for
two end ids), the way an application reads generation metadata (get_max_seq_len, ...).
"""

import torch

from exporter.constant_segment import pack_constants
from exporter.errors import ExportError
from program.model import Bool, Double, Int, Method, Tensor

_REFS = ("constant", "initial")


def constant_method(name: str, value) -> Method:
    """Constant method `name` returning `value`."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    values = []
    for item in items:
        if isinstance(item, bool):
            values.append(Bool(item))
        elif isinstance(item, int):
            values.append(Int(item))
        elif isinstance(item, float) and not isinstance(value, (list, tuple)):
            values.append(Double(item))
        else:
            raise ExportError(f"constant method '{name}': {value!r} is not an int, float, "
                              "bool or list of ints; give one of those")
    return Method(name, values, outputs=list(range(len(values))))


def share_segment(built: list[tuple[Method, bytes]], slack: int) -> tuple[list[Method], bytes]:
    """Repacks the (method, segment) pairs into one segment (identical bytes once) and
    points every reference at it; `slack` zero bytes end it (a backend's over-read)."""
    pieces, refs = [], []
    for method, segment in built:
        for tensor in method.values:
            for field in _REFS:
                ref = getattr(tensor, field) if isinstance(tensor, Tensor) else None
                if ref is not None:
                    pieces.append((len(refs), segment[ref.offset:ref.offset + tensor.nbytes]))
                    refs.append(ref)
    packed = pack_constants(pieces)
    for key, ref in enumerate(refs):
        ref.offset = packed.offsets.get(key, 0)
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
