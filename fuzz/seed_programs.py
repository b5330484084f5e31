"""Hand-built seed programs for the fuzzer: what exported models never contain.

    python -m fuzz.seed_programs DIR        write DIR/<name>.pte for each seed

Exported programs hold kernel calls (and delegate calls) only. These add, each in a few
hundred bytes, the instruction kinds (JumpFalse, Move, Free) and the value kinds
(String, DoubleList, BoolList, TensorList, OptionalTensorList, None, a mutable buffer
with its initial value, dynamic tensors with lower bounds) and a program with two
methods, so the fuzzer starts from every branch of method load. Each program runs
correctly on the fuzzer's runtime (tests/fuzz/test_fuzz.py checks it), so mutations
start from inputs that reach execute.
"""

import os
import struct
import sys

from program.atomic import write_bytes_atomic
from program.pte import serialize_json

ITEMSIZE = {"Float": 4, "Long": 8, "Bool": 1}


class _Method:
    """Values appended one at a time, each planned at the next 64-byte aligned offset."""

    def __init__(self, name: str):
        self.name, self.values, self.instructions, self.operators = name, [], [], []
        self.arena_end = 0

    def add(self, kind: str, val=None) -> int:
        self.values.append({"val_type": kind, "val": val} if kind else {})
        return len(self.values) - 1

    def tensor(self, sizes, dtype="Float", **fields) -> int:
        t = {"scalar_type": dtype, "sizes": list(sizes),
             "dim_order": list(range(len(sizes))), **fields}
        if "constant" not in t:
            t["allocation"] = {"arena": 0, "offset": self.arena_end}
            count = 1
            for s in sizes:
                count *= s
            self.arena_end += (count * ITEMSIZE[dtype] + 63) // 64 * 64
        return self.add("Tensor", t)

    def ints(self, *items) -> int:
        return self.add("IntList", {"items": [self.add("Int", {"value": i}) for i in items]})

    def call(self, op: str, *args: int):
        name, overload = op.split(".")
        if (name, overload) not in self.operators:
            self.operators.append((name, overload))
        self.instructions.append({"instr_type": "KernelCall", "instr": {
            "op_index": self.operators.index((name, overload)), "args": list(args)}})

    def instr(self, kind: str, **fields):
        self.instructions.append({"instr_type": kind, "instr": fields})

    def to_dict(self, inputs, outputs) -> dict:
        return {"name": self.name, "values": self.values, "instructions": self.instructions,
                "operators": [{"name": n, "overload": o} for n, o in self.operators],
                "inputs": list(inputs), "outputs": list(outputs),
                "arena_sizes": [max(self.arena_end, 64)]}


def _program(*methods, segment: bytes = b"") -> bytes:
    segments = [{"offset": 0, "size": len(segment)}] if segment else []
    return serialize_json({"version": 0, "methods": list(methods), "segments": segments},
                          segment)


def control_flow() -> bytes:
    """JumpFalse over a relu, Move of its result, Free of the input."""
    m = _Method("forward")
    x, y = m.tensor((2, 3)), m.tensor((2, 3))
    cond, z = m.add("Bool", {"value": True}), m.tensor((2, 3))
    m.instr("JumpFalse", cond=cond, destination=3)
    m.call("aten::relu.out", x, y)
    m.instr("Move", **{"from": y, "to": z})
    m.instr("Free", value=x)
    return _program(m.to_dict([x], [z]))


def value_kinds() -> bytes:
    """Lists, strings, None and a dynamic input with lower bounds, used by real kernels."""
    m = _Method("forward")
    x = m.tensor((2, 4), dynamic=True, min_sizes=[1, 4])
    y = m.tensor((2, 4))
    index = m.tensor((3,), "Long")
    both = m.add("TensorList", {"items": [x, y]})
    cat = m.tensor((4, 4))
    m.call("aten::gelu.out", x, m.add("String", {"value": "tanh"}), y)
    m.call("aten::cat.out", both, m.add("Int", {"value": 0}), cat)
    view = m.tensor((2, 8))
    m.call("aten::view_copy.out", cat, m.ints(2, 8), view)
    picked = m.tensor((3, 8))
    m.call("aten::index.Tensor_out", view,
           m.add("OptionalTensorList", {"items": [index]}), picked)
    total = m.tensor((1, 8))
    m.call("aten::sum.IntList_out", picked, m.ints(0), m.add("Bool", {"value": True}),
           m.add(None), total)
    # Kinds no kernel of these takes still go through load's checks.
    m.add("DoubleList", {"items": [0.5, -1e30]})
    m.add("BoolList", {"items": [True, False]})
    m.add("OptionalTensorList", {"items": [-1, x]})
    return _program(m.to_dict([x, index], [total]))


def two_methods_with_state() -> bytes:
    """`forward` adds a constant (alpha a Double); `step` accumulates into a mutable buffer."""
    segment = struct.pack("<6f", 1, 2, 3, 4, 5, 6) + bytes(40) + struct.pack("<6f", *[0.5] * 6)
    forward = _Method("forward")
    x = forward.tensor((2, 3))
    c = forward.tensor((2, 3), constant={"segment": 0, "offset": 0})
    y = forward.tensor((2, 3))
    forward.call("aten::add.out", x, c, forward.add("Double", {"value": 0.5}), y)
    step = _Method("step")
    x2 = step.tensor((2, 3))
    state = step.tensor((2, 3), initial={"segment": 0, "offset": 64})
    one = step.add("Int", {"value": 1})
    step.call("aten::add.out", state, x2, one, state)
    out = step.tensor((2, 3))
    step.call("aten::mul.out", state, x2, out)
    return _program(forward.to_dict([x], [y]), step.to_dict([x2], [out]), segment=segment)


SEEDS = {"control_flow": control_flow, "value_kinds": value_kinds,
         "two_methods_with_state": two_methods_with_state}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    for name, build in SEEDS.items():
        write_bytes_atomic(os.path.join(args[0], name + ".pte"), build())
    return 0


if __name__ == "__main__":
    sys.exit(main())
