"""Graph call targets -> the operators a Tailor program calls.

Input: the target of an FX call_function node of a core-ATen graph (an OpOverload such as
aten.addmm.default, or a Python operator on SymInts such as operator.mul).
Output: a ProgramOp with the fully qualified name (`aten::addmm.out`) and the schema whose
argument order the KernelCall follows (docs/internals.md):

- a functional op becomes its out variant: the overload of the same packet whose schema
  has out arguments and whose other arguments equal the functional ones (name and type);
- a view op becomes the out variant of its `_copy` op (`view` -> `view_copy.out`), since
  the runtime has no aliasing views;
- an op of any other namespace (quantized_decomposed::, tailor_quant::, a user's
  torch.library op) becomes its out variant the same way: whether a kernel serves it is
  the kernel libraries' business (codegen/resolve.py names the op when none does);
- symbolic-int ops (`aten::sym_size.int`, ...) stay as they are;
- operator.mul/add/sub/floordiv/mod on SymInts become `tailor_prim::<name>.int`.

An op with no such counterpart returns None; the caller reports it with the node name.
"""

import functools
import operator
from dataclasses import dataclass

import torch

import exporter.quantize.ops  # noqa: F401  (registers the quantized ops and their outs)

aten = torch.ops.aten


@dataclass(frozen=True)
class ArgSpec:
    """One argument or return of a program operator's schema."""
    name: str
    type: object        # torch._C.JitType, the schema's real type (ScalarType, not int)
    is_out: bool
    n: int | None        # fixed list length (`int[2]`), None otherwise


@dataclass(frozen=True)
class ProgramOp:
    """An operator as the program names and calls it."""
    name: str                      # "aten::addmm"
    overload: str                  # "out" ("" when the schema has no overload name)
    arguments: tuple[ArgSpec, ...]  # schema order: inputs (kwarg-only included), outs
    returns: tuple[ArgSpec, ...]
    schema: str                    # for messages and debugging

    @property
    def qualified_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def inputs(self) -> tuple[ArgSpec, ...]:
        return tuple(a for a in self.arguments if not a.is_out)

    @property
    def outs(self) -> tuple[ArgSpec, ...]:
        return tuple(a for a in self.arguments if a.is_out)

    @property
    def scalar_returns(self) -> tuple[ArgSpec, ...]:
        """Returns that are not tensors: each gets one slot after the out arguments."""
        return tuple(r for r in self.returns if not is_tensor_type(r.type)
                     and not is_tensor_list_type(r.type))


# Views whose _copy op is not simply "<name>_copy" with the same overload.
_VIEW_COPIES = {
    aten.view.default: aten.view_copy.default,
    aten._unsafe_view.default: aten.view_copy.default,
    aten.reshape.default: aten.view_copy.default,
}

# aten ops on symbolic ints that are kernels themselves (their schema has no outs).
_SYMBOLIC_OPS = {aten.sym_size.int, aten.sym_numel.default, aten.sym_stride.int,
                 aten.sym_storage_offset.default}

# Python operators on SymInts in exported graphs -> tailor_prim::<name>.int.
PRIM_INT_OPS = {operator.mul: "mul", operator.add: "add", operator.sub: "sub",
                operator.floordiv: "floordiv", operator.mod: "mod"}

# Nodes that only check shapes at trace time; the program does not call them.
IGNORED_TARGETS = {aten._assert_scalar.default, aten._assert_async.msg,
                   aten._assert_tensor_metadata.default,
                   aten.sym_constrain_range.default,
                   aten.sym_constrain_range_for_size.default}


def is_tensor_type(t) -> bool:
    return t.kind() == "TensorType"


def is_tensor_list_type(t) -> bool:
    if t.kind() != "ListType":
        return False
    elem = t.getElementType()
    if elem.kind() == "OptionalType":
        elem = elem.getElementType()
    return elem.kind() == "TensorType"


def _arg_spec(a, is_out: bool | None = None) -> ArgSpec:
    return ArgSpec(a.name, a.real_type, a.is_out if is_out is None else is_out, a.N)


def _from_schema(schema, name: str | None = None, overload: str | None = None) -> ProgramOp:
    return ProgramOp(
        name=name or schema.name,
        overload=schema.overload_name if overload is None else overload,
        arguments=tuple(_arg_spec(a) for a in schema.arguments),
        returns=tuple(_arg_spec(r, False) for r in schema.returns),
        schema=str(schema))


# Arguments of factory functions that out variants drop (the out tensor has them).
_TENSOR_OPTIONS = frozenset({"dtype", "layout", "device", "pin_memory"})


def _signature(arguments) -> list[tuple[str, str]]:
    return [(a.name, str(a.real_type)) for a in arguments]


def _find_out_overload(op: torch._ops.OpOverload):
    """The out overload of `op`'s packet whose non-out arguments equal `op`'s, or None.

    Factory-like ops (full, arange, _to_copy, ...) lose their tensor-options arguments
    in the out variant, because the out tensor carries dtype, layout and device; such a
    variant is taken only when no variant keeps every argument.
    """
    schema = op._schema
    exact = _signature(schema.arguments)
    reduced = [s for s in exact if s[0] not in _TENSOR_OPTIONS]
    namespace, _, packet_name = schema.name.partition("::")
    packet = getattr(getattr(torch.ops, namespace), packet_name)
    found = {}
    for overload in packet.overloads():
        candidate = getattr(packet, overload)._schema
        if not any(a.is_out for a in candidate.arguments):
            continue
        have = _signature([a for a in candidate.arguments if not a.is_out])
        if have == exact or have == reduced:
            found.setdefault(have == exact, []).append(candidate)
    found = found.get(True) or found.get(False)
    if not found:
        return None
    preferred = ("out", f"{schema.overload_name}_out")
    found.sort(key=lambda s: (s.overload_name not in preferred, s.overload_name))
    return found[0]


def _copy_op(op: torch._ops.OpOverload):
    """The `_copy` op of the view op `op`, or None."""
    if op in _VIEW_COPIES:
        return _VIEW_COPIES[op]
    packet_name = op._schema.name.split("::")[1] + "_copy"
    packet = getattr(aten, packet_name, None)
    if packet is None:
        return None
    return getattr(packet, op._overloadname, None)


def _is_view(op: torch._ops.OpOverload) -> bool:
    return op in _VIEW_COPIES or any(
        r.alias_info is not None and not r.alias_info.is_write for r in op._schema.returns)


@functools.lru_cache(maxsize=None)
def scalar_overload(op: torch._ops.OpOverload, names: frozenset[str]):
    """The overload of `op`'s packet that takes a Scalar for the Tensor arguments `names`
    (mul.Tensor with a Python number -> mul.Scalar), or None.

    Core ATen passes Python numbers to Tensor arguments ("wrapped numbers"); the Scalar
    overload means the same, and its out variant takes the number as a Scalar value.
    """
    if not isinstance(op, torch._ops.OpOverload):
        return None
    want = [(a.name, "number" if a.name in names else str(a.real_type))
            for a in op._schema.arguments]
    packet = getattr(aten, op._schema.name.split("::")[1])
    for overload in packet.overloads():
        candidate = getattr(packet, overload)
        if _signature(candidate._schema.arguments) == want:
            return candidate
    return None


@functools.lru_cache(maxsize=None)
def program_op(target) -> ProgramOp | None:
    """The operator a node with this call target becomes, or None if there is none."""
    if target in PRIM_INT_OPS:
        int_type = torch._C.IntType.get()
        a, b = (ArgSpec(n, int_type, False, None) for n in "ab")
        name = PRIM_INT_OPS[target]
        return ProgramOp(f"tailor_prim::{name}", "int", (a, b),
                         (ArgSpec("", int_type, False, None),),
                         f"tailor_prim::{name}.int(int a, int b) -> int")
    if not isinstance(target, torch._ops.OpOverload):
        return None
    if target in _SYMBOLIC_OPS:
        return _from_schema(target._schema)
    if any(a.is_out for a in target._schema.arguments):
        return _from_schema(target._schema)
    functional = target
    if _is_view(target):
        functional = _copy_op(target)
        if functional is None:
            return None
    out = _find_out_overload(functional)
    return None if out is None else _from_schema(out)
