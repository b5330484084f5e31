"""The typed program model: one dataclass per table of schema/program.fbs.

Plain data, no I/O and no torch: program/pte.py reads and writes it as .pte bytes, the
exporter builds it, codegen, the partitioner, the inspector and the tests read it.
A value is its ValueKind member directly (`None` for a value without one), and an
instruction its InstructionKind member, so `isinstance(v, Tensor)` asks a value's kind.
Tables the exporter fills in step by step (a tensor's placement) are mutable.
"""

import re
from dataclasses import dataclass, field

from codegen.dtypes import ITEM_SIZES, SCALAR_TYPE_CODES

# schema/program.fbs ScalarType, by name, in code order.
SCALAR_TYPES = tuple(SCALAR_TYPE_CODES)


@dataclass
class ConstantRef:
    segment: int
    offset: int


@dataclass
class Allocation:
    arena: int
    offset: int


@dataclass
class Tensor:
    scalar_type: str                     # a SCALAR_TYPES name: "Float"
    sizes: list[int]                     # upper bounds of a dynamic tensor
    dim_order: list[int]
    dynamic: bool = False
    constant: ConstantRef | None = None
    allocation: Allocation | None = None
    min_sizes: list[int] | None = None   # lower bounds of a dynamic tensor's sizes
    initial: ConstantRef | None = None   # a mutable buffer's value at load

    @property
    def nbytes(self) -> int:
        n = ITEM_SIZES[self.scalar_type]
        for s in self.sizes:
            n *= s
        return n


@dataclass(frozen=True)
class Int:
    value: int = 0


@dataclass(frozen=True)
class Double:
    value: float = 0.0


@dataclass(frozen=True)
class Bool:
    value: bool = False


@dataclass(frozen=True)
class String:
    value: str = ""


@dataclass(frozen=True)
class IntList:
    items: list[int]                     # ids of Int values, so symbolic ints stay live


@dataclass(frozen=True)
class DoubleList:
    items: list[float]


@dataclass(frozen=True)
class BoolList:
    items: list[bool]


@dataclass(frozen=True)
class TensorList:
    items: list[int]


@dataclass(frozen=True)
class OptionalTensorList:
    items: list[int]                     # -1 marks None


# The ValueKind union; a value is one of these or None.
VALUE_KINDS = (Int, Double, Bool, String, Tensor, IntList, DoubleList, BoolList, TensorList,
               OptionalTensorList)
LIST_KINDS = (TensorList, OptionalTensorList, IntList)   # lists of value ids
Value = Int | Double | Bool | String | Tensor | IntList | DoubleList | BoolList | \
    TensorList | OptionalTensorList | None


def kind_name(value: Value) -> str:
    """The schema's name of a value's kind: "Tensor", "IntList", ...; "None" for None."""
    return "None" if value is None else type(value).__name__


@dataclass(frozen=True)
class Operator:
    name: str                            # "aten::addmm"
    overload: str = ""                   # "out"

    @property
    def qualified_name(self) -> str:
        """"aten::addmm.out", the spelling of kernel manifests and op lists."""
        return f"{self.name}.{self.overload}" if self.overload else self.name


@dataclass(frozen=True)
class KernelCall:
    op_index: int
    args: list[int]                      # inputs, outs, then one slot per scalar return


@dataclass(frozen=True)
class DelegateCall:
    delegate_index: int
    args: list[int]                      # inputs, then outputs


@dataclass(frozen=True)
class Move:
    from_: int                           # the schema's `from`
    to: int


@dataclass(frozen=True)
class JumpFalse:
    cond: int
    destination: int


@dataclass(frozen=True)
class Free:
    value: int


INSTRUCTION_KINDS = (KernelCall, DelegateCall, Move, JumpFalse, Free)
Instruction = KernelCall | DelegateCall | Move | JumpFalse | Free


@dataclass(frozen=True)
class Delegate:
    backend: str                         # "xnnpack"
    data: bytes                          # the backend's serialized subgraph


@dataclass
class Method:
    name: str
    values: list[Value] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    operators: list[Operator] = field(default_factory=list)
    delegates: list[Delegate] = field(default_factory=list)
    instructions: list[Instruction] = field(default_factory=list)
    arena_sizes: list[int] = field(default_factory=list)

    def kernel_calls(self) -> list[tuple[int, KernelCall]]:
        """(instruction index, call) of every KernelCall, in order."""
        return [(i, c) for i, c in enumerate(self.instructions) if isinstance(c, KernelCall)]



@dataclass(frozen=True)
class Segment:
    offset: int                          # relative to the segment base
    size: int


@dataclass
class Program:
    version: int = 1
    methods: list[Method] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)

    def method(self, name: str) -> Method:
        """The method called `name`; KeyError naming the methods there are."""
        for m in self.methods:
            if m.name == name:
                return m
        raise KeyError(f"no method '{name}'; the methods are "
                       f"{', '.join(m.name for m in self.methods)}")


def tensor_ids(values: list[Value], args) -> list[int]:
    """The tensor value ids among `args`, members of tensor lists included."""
    found = []
    for a in args:
        value = values[a]
        if isinstance(value, Tensor):
            found.append(a)
        elif isinstance(value, (TensorList, OptionalTensorList)):
            found.extend(i for i in value.items if i >= 0)
    return found


# What join_key() writes: "Dtype;dims" parts joined by "|", or "" (no tensor argument).
_KEY = re.compile(r"^([A-Za-z0-9]+;[0-9,]*(\|[A-Za-z0-9]+;[0-9,]*)*)?$")


def dim_order_key(dim_order) -> str:
    """"0,2,3,1": a dim order as kernel keys and op lists spell it."""
    return ",".join(str(d) for d in dim_order)


def key_part(dtype: str, dim_order: str) -> str:
    """"Float;0,1": one tensor argument's part of a kernel key."""
    return f"{dtype};{dim_order}"


def join_key(parts) -> str:
    """The kernel key of its parts, in argument order: "Float;0|Float;0,1"."""
    return "|".join(parts)


def is_kernel_key(text: str) -> bool:
    """Whether `text` is spelled as join_key() writes keys ("" included: no tensor)."""
    return _KEY.match(text) is not None


def tensor_key(tensor: Tensor) -> str:
    """"Float;0,1": one tensor's part of a kernel key."""
    return key_part(tensor.scalar_type, dim_order_key(tensor.dim_order))


def kernel_key(values: list[Value], args) -> str:
    """The kernel key of a call with `args` (docs/internals.md): the dtype and dim order
    of each argument that is a tensor, in argument order, joined by "|":
    "Float;0|Float;0,1|Float;0,1". The runtime looks kernels up by the same rule
    (runtime/executor/method_steps.cpp) and kernel manifests spell their keys so
    (codegen/kernel_manifest.py); tensor lists and absent tensors add nothing."""
    return join_key(tensor_key(values[a]) for a in args if isinstance(values[a], Tensor))
