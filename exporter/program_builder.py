"""Core-ATen ExportedProgram -> one method of the program model, plus constant segment.

Input: a torch.export ExportedProgram already decomposed to core ATen. Output: a
BuiltMethod holding the method (program/model.py), the constant segment bytes and the
memory plan. The rules are in docs/internals.md:

- every graph op becomes a KernelCall to its out variant (out_variants.py), with one
  value id per schema argument (kwarg-only and defaulted ones included), then the out
  tensors, then one slot per non-tensor return;
- every scalar or list argument is a Value of its own; an IntList lists the ids of Int
  values, so a symbolic int computed at run time (sym_size, tailor_prim) is read live;
- tensors are contiguous; parameters, buffers and lifted constants live in segment 0,
  every other tensor (inputs and outputs included) is planned into arena 0 at the upper
  bound of its dynamic dims (memory_plan.py; data-dependent sizes, such as nonzero's,
  at the bound data_dependent.py gives);
- a buffer the model writes in place is planned for the whole method, with its initial
  value in segment 0 (exporter/mutable_buffers.py says how each write is lowered);
- with a partitioner (exporter/delegation.py), the calls a backend claims become
  DelegateCalls before memory is planned, so values internal to a delegate take no
  arena memory, and only the operators left outside delegates stay in the table.
"""

import dataclasses
import operator
from dataclasses import dataclass

import torch
from torch.export.graph_signature import InputKind, OutputKind
from torch.utils._sympy.value_ranges import bound_sympy

from exporter.data_dependent import data_dependent_ranges, finite_bound
from exporter.delegation import (Call, DelegationReport, Instruction, LoweredMethod,
                                 delegate_method)
from exporter.errors import ExportError
from exporter.memory_plan import MemoryPlan
from exporter.mutable_buffers import find_buffer_writes
from exporter.node_source import describe, origin
from exporter.out_variants import (IGNORED_TARGETS, PRIM_INT_OPS, ProgramOp,
                                   is_tensor_list_type, program_op, scalar_overload)
from exporter.scalar_types import (DEVICE_TYPE_CODES, LAYOUT_CODES, MEMORY_FORMAT_CODES,
                                   SCALAR_TYPE_CODES, SCALAR_TYPE_NAMES)
from exporter.tensor_placement import TensorData, place_tensors
from program import model
from program.debug_record import written_tensors
from program.model import (Bool, BoolList, DelegateCall, Double, DoubleList, Int, IntList,
                           KernelCall, OptionalTensorList, String, TensorList)

_CONSTANT_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)
BACKEND_SLACK = 16  # XNN_EXTRA_BYTES


@dataclass(frozen=True)
class BuiltMethod:
    method: model.Method
    segment: bytes          # constant segment data (segments[0])
    plan: MemoryPlan
    node_count: int         # call_function nodes in the core-ATen graph
    delegation: DelegationReport | None = None
    debug: tuple = ()       # per instruction, where it comes from (program/debug_record.py)


def _unbounded_message(node: torch.fx.Node, expr) -> str:
    """The error for a size without an upper bound: the op, and how to bound it (the
    op's own `output_size=` argument where it has one, else a dynamic dim's max or a
    torch._check)."""
    op = (f" of {node.target._schema.name}.{node.target._overloadname or 'default'}"
          if isinstance(node.target, torch._ops.OpOverload) else "")
    fix = ("give the dynamic dim a max (dynamic_dims: max:) or bound the data-dependent "
           "size with torch._check(size <= n)")
    if isinstance(node.target, torch._ops.OpOverload) and any(
            a.name == "output_size" for a in node.target._schema.arguments):
        fix = f"pass output_size= to {node.target._schema.name.split('::')[-1]}, or " + fix
    return (f"{describe(node)}: the output size {expr}{op} has no upper bound, so its "
            f"memory cannot be planned; {fix}")


def build_method(ep: torch.export.ExportedProgram, name: str, partitioner=None) -> BuiltMethod:
    """Lowers `ep` (core ATen) to a method named `name`, delegating what `partitioner`
    (an exporter.delegation.Partitioner, or None) claims; see the module docstring."""
    return _MethodBuilder(ep, name, partitioner).build()


class _MethodBuilder:
    def __init__(self, ep: torch.export.ExportedProgram, name: str, partitioner=None):
        self.ep = ep
        self.name = name
        self.partitioner = partitioner
        self.calls: list[Call] = []          # what delegation sees, one per instruction
        self.node_name = ""                  # the graph node being lowered
        self.origins: dict[str, dict] = {}   # node name -> its module path and source line
        self.values: list[model.Value] = []
        self.tensors: dict[int, TensorData] = {}
        self.env: dict[torch.fx.Node, int | list[int]] = {}
        self.operators: dict[str, ProgramOp] = {}   # by name, in first-use order
        self.ranges = dict(ep.range_constraints)
        data_dependent_ranges(ep, self._upper_bound, self.ranges)
        self.writes = find_buffer_writes(ep)
        self.buffers: set[int] = set()           # mutable buffers: planned, persistent
        self.aliases: dict[int, int] = {}        # out tensor -> the buffer it writes in place
        self.write_backs: list[tuple[int, int]] = []  # (new value, buffer) copied at the end

    # -- values ----------------------------------------------------------------------

    def _add(self, value: model.Value) -> int:
        self.values.append(value)
        return len(self.values) - 1

    def _none(self) -> int:
        return self._add(None)

    def _int(self, v: int) -> int:
        return self._add(Int(int(v)))

    def _size_range(self, size) -> tuple[int | None, int | None]:
        """(lower, upper) of a size, symbolic ones bound by the export's ranges; None
        where a bound is infinite."""
        if isinstance(size, int):
            return size, size
        expr = size.node.expr
        if expr.is_number:
            return int(expr), int(expr)
        bounds = bound_sympy(expr, {**size.node.shape_env.var_to_range, **self.ranges})
        return finite_bound(bounds.lower), finite_bound(bounds.upper)

    def _upper_bound(self, size, node: torch.fx.Node) -> int:
        upper = self._size_range(size)[1]
        if upper is None:
            raise ExportError(_unbounded_message(node, size.node.expr))
        return upper

    def _lower_bound(self, size) -> int:
        lower = self._size_range(size)[0]
        return max(0, lower) if lower is not None else 0

    def _tensor(self, fake: torch.Tensor, node: torch.fx.Node,
                constant: torch.Tensor | None = None, state: bool = False) -> int:
        """A tensor value; `constant` gives its data (with `state`, only its initial
        value: a mutable buffer)."""
        if fake.dtype not in SCALAR_TYPE_NAMES:
            raise ExportError(f"{describe(node)}: dtype {fake.dtype} is not supported by "
                              f"Tailor programs; use one of "
                              f"{', '.join(str(d) for d in SCALAR_TYPE_NAMES)}")
        sizes = [self._upper_bound(s, node) for s in fake.shape]
        dynamic = any(isinstance(s, torch.SymInt) and not s.node.expr.is_number
                      for s in fake.shape)
        tensor = model.Tensor(SCALAR_TYPE_NAMES[fake.dtype], sizes, list(range(len(sizes))),
                              dynamic)
        if dynamic:  # the runtime refuses an input below the export's minimum
            tensor.min_sizes = [self._lower_bound(s) for s in fake.shape]
        data = None
        if constant is not None:
            flat = constant.detach().contiguous().reshape(-1)
            data = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
        vid = self._add(tensor)
        self.tensors[vid] = (TensorData(fake.dtype, sizes, tensor, initial=data) if state
                             else TensorData(fake.dtype, sizes, tensor, data))
        if state:
            self.buffers.add(vid)
        return vid

    def _node_value(self, v: torch.fx.Node, node: torch.fx.Node) -> int:
        found = self.env.get(v)
        if not isinstance(found, int):
            raise ExportError(f"{describe(node)}: argument '{v.name}' is not a single value")
        return found

    def _arg(self, t, v, n: int | None, node: torch.fx.Node) -> int:
        """A value for argument value `v` of schema type `t` (torch JitType)."""
        kind = t.kind()
        if v is None:
            return self._none()
        if kind == "OptionalType":
            return self._arg(t.getElementType(), v, n, node)
        if isinstance(v, torch.fx.Node):
            if kind in ("TensorType", "IntType", "SymIntType", "NumberType", "FloatType",
                        "SymFloatType", "BoolType", "SymBoolType"):
                return self._node_value(v, node)
        if kind == "ListType":
            return self._list_arg(t.getElementType(), v, n, node)
        if kind in ("IntType", "SymIntType") and isinstance(v, int):
            return self._int(v)
        if kind in ("FloatType", "SymFloatType") and isinstance(v, (int, float)):
            return self._add(Double(float(v)))
        if kind in ("BoolType", "SymBoolType") and isinstance(v, bool):
            return self._add(Bool(v))
        if kind == "StringType" and isinstance(v, str):
            return self._add(String(v))
        if kind == "NumberType" and isinstance(v, (bool, int, float)):
            if isinstance(v, bool):
                return self._add(Bool(v))
            if isinstance(v, int):
                return self._int(v)
            return self._add(Double(float(v)))
        if kind == "ScalarTypeType" and isinstance(v, (torch.dtype, int)):
            return self._int(v if isinstance(v, int) else SCALAR_TYPE_CODES[v])
        if kind == "LayoutType" and isinstance(v, (torch.layout, int)):
            return self._int(v if isinstance(v, int) else LAYOUT_CODES[v])
        if kind == "MemoryFormatType" and isinstance(v, (torch.memory_format, int)):
            return self._int(v if isinstance(v, int) else MEMORY_FORMAT_CODES[v])
        if kind == "DeviceObjType" and isinstance(v, (torch.device, str)):
            device = torch.device(v)
            if device.type not in DEVICE_TYPE_CODES:
                raise ExportError(f"{describe(node)}: device {device} is not supported; "
                                  "export the model on cpu")
            return self._int(DEVICE_TYPE_CODES[device.type])
        raise ExportError(f"{describe(node)}: argument {v!r} of schema type {t} is not "
                          "supported by Tailor programs")

    def _list_arg(self, elem, v, n: int | None, node: torch.fx.Node) -> int:
        items = list(v) if isinstance(v, (list, tuple)) else [v] * (n or 1)
        kind = elem.kind()
        if kind == "TensorType":
            return self._add(TensorList([self._node_value(x, node) for x in items]))
        if kind == "OptionalType" and elem.getElementType().kind() == "TensorType":
            return self._add(OptionalTensorList([
                -1 if x is None else self._node_value(x, node) for x in items]))
        if kind in ("IntType", "SymIntType"):
            return self._add(IntList([self._arg(elem, x, None, node) for x in items]))
        if kind == "FloatType" and all(isinstance(x, (int, float)) for x in items):
            return self._add(DoubleList([float(x) for x in items]))
        if kind == "BoolType" and all(isinstance(x, bool) for x in items):
            return self._add(BoolList(list(items)))
        raise ExportError(f"{describe(node)}: list argument {v!r} of element type {elem} is "
                          "not supported by Tailor programs")

    # -- instructions ----------------------------------------------------------------

    def _call(self, op: ProgramOp, args: list[int], num_inputs: int) -> None:
        self.operators.setdefault(op.qualified_name, op)
        self.calls.append(Call(op.qualified_name, tuple(args), num_inputs, self.node_name))

    def _return_slot(self, t) -> int:
        kind = t.kind()
        if kind in ("IntType", "SymIntType"):
            return self._int(0)
        if kind in ("FloatType", "SymFloatType"):
            return self._add(Double(0.0))
        if kind in ("BoolType", "SymBoolType"):
            return self._add(Bool(False))
        return self._none()

    def _prim_int_call(self, node: torch.fx.Node, op: ProgramOp) -> None:
        args = [self._arg(spec.type, v, None, node) for spec, v in zip(op.inputs, node.args)]
        result = self._int(self._upper_bound(node.meta["val"], node))
        self.env[node] = result
        self._call(op, args + [result], len(args))

    def _bind(self, node: torch.fx.Node) -> dict[str, object]:
        """Argument name -> value for every argument of the node's own schema."""
        bound = {}
        positional = list(node.args)
        for a in node.target._schema.arguments:
            if not a.kwarg_only and positional:
                bound[a.name] = positional.pop(0)
            elif a.name in node.kwargs:
                bound[a.name] = node.kwargs[a.name]
            elif a.has_default_value():
                bound[a.name] = a.default_value
            else:
                raise RuntimeError(f"{node.name}: no value for argument {a.name} of "
                                   f"{node.target._schema}")
        return bound

    def _op_call(self, node: torch.fx.Node, op: ProgramOp) -> None:
        bound = self._bind(node)
        args = [self._arg(a.type, bound[a.name], a.n, node) for a in op.inputs]

        val = node.meta["val"]
        if not op.outs:                       # a symbolic-int op: sym_size.int, ...
            result = self._int(self._upper_bound(val, node))
            self.env[node] = result
            self._call(op, args + [result], len(args))
            return
        fakes = list(val) if isinstance(val, (list, tuple)) else [val]
        results = [self._tensor(f, node) for f in fakes]
        if len(op.outs) == 1 and is_tensor_list_type(op.outs[0].type):
            outs = [self._add(TensorList(results))]
        elif len(op.outs) == len(results):
            outs = results
        else:
            raise ExportError(f"{describe(node)}: {op.qualified_name} has {len(op.outs)} "
                              f"out arguments but the graph expects {len(results)} results")
        slots = [self._return_slot(r.type) for r in op.scalar_returns]
        self.env[node] = results if isinstance(val, (list, tuple)) else results[0]
        if node in self.writes.in_place:
            buffer = self.writes.placeholders[self.writes.in_place[node]]
            self.aliases[results[0]] = self.env[buffer]
        self._call(op, args + outs + slots, len(args))

    # -- graph -----------------------------------------------------------------------

    def _placeholders(self) -> list[int]:
        specs = self.ep.graph_signature.input_specs
        nodes = [n for n in self.ep.graph.nodes if n.op == "placeholder"]
        inputs = []
        for spec, node in zip(specs, nodes, strict=True):
            val = node.meta.get("val")
            if spec.kind == InputKind.USER_INPUT:
                if not isinstance(val, torch.Tensor):
                    raise ExportError(f"input '{node.name}' is {type(val).__name__}; Tailor "
                                      "programs take tensor inputs only")
                self.env[node] = self._tensor(val, node)
                inputs.append(self.env[node])
            elif spec.kind in _CONSTANT_KINDS:
                target = spec.target
                real = (self.ep.state_dict[target] if target in self.ep.state_dict
                        else self.ep.constants[target])
                self.env[node] = self._tensor(real, node, constant=real,
                                              state=target in self.writes.placeholders)
            else:
                raise ExportError(f"input '{node.name}' is a {spec.kind.name} input, "
                                  "which Tailor programs do not support")
        return inputs

    def _outputs(self, node: torch.fx.Node) -> list[int]:
        outputs = []
        for spec, v in zip(self.ep.graph_signature.output_specs, node.args[0], strict=True):
            if spec.kind == OutputKind.BUFFER_MUTATION:
                self._write_back(spec.target, v)
                continue
            if isinstance(v, torch.fx.Node):
                vid = self._node_value(v, node)
                if vid in self.tensors and self.tensors[vid].constant is not None:
                    vid = self._copy_constant(vid, v)
            else:
                vid = self._arg(torch._C.NumberType.get(), v, None, node)
            outputs.append(vid)
        return outputs

    def _write_back(self, target: str, value) -> None:
        """Makes buffer `target` hold `value` after the call: nothing to do when its
        op wrote the buffer in place, else a copy after the last instruction (added
        after delegation, which must not order it before a read of the old value)."""
        buffer = self.env[self.writes.placeholders[target]]
        if not isinstance(value, torch.fx.Node):
            raise ExportError(f"buffer '{target}' is set to {value!r}; assign a tensor")
        vid = self._node_value(value, value)
        if vid != buffer and self.aliases.get(vid) != buffer:
            self.write_backs.append((vid, buffer))

    def _add_write_backs(self, instructions: list) -> None:
        """Appends the write-back copies to the instruction list."""
        op = program_op(torch.ops.aten.clone.default)
        for vid, buffer in self.write_backs:
            self.operators.setdefault(op.qualified_name, op)
            instructions.append(Instruction("KernelCall", op.qualified_name,
                                            [vid, self._none(), buffer], 2, ["output"]))

    def _copy_constant(self, vid: int, node: torch.fx.Node) -> int:
        """A planned copy of constant `vid`: the runtime reads outputs from the arena."""
        op = program_op(torch.ops.aten.clone.default)
        out = self._tensor(node.meta["val"], node)
        self._call(op, [vid, self._none(), out], 2)
        return out

    def _target(self, node: torch.fx.Node):
        """The node's op, switched to its Scalar overload if it passes Python numbers
        to Tensor arguments."""
        target = node.target
        if not isinstance(target, torch._ops.OpOverload) or target in PRIM_INT_OPS:
            return target
        bound = self._bind(node)
        numbers = frozenset(a.name for a in target._schema.arguments
                            if a.real_type.kind() == "TensorType"
                            and isinstance(bound[a.name], (bool, int, float)))
        if not numbers:
            return target
        found = scalar_overload(target, numbers)
        if found is None:
            raise ExportError(
                f"{describe(node)}: {target} gets the number {bound[next(iter(numbers))]!r} "
                f"for a Tensor argument and has no overload taking a Scalar there; make "
                "the number a tensor in the model (torch.tensor(...))")
        return found

    def build(self) -> BuiltMethod:
        graph = self.ep.graph
        output = graph.find_nodes(op="output")[0]
        needed = set()
        stack = [output]
        while stack:
            n = stack.pop()
            if n not in needed:
                needed.add(n)
                stack.extend(n.all_input_nodes)

        inputs = self._placeholders()
        calls = [n for n in graph.nodes if n.op == "call_function"]
        for node in calls:
            if node not in needed or node.target in IGNORED_TARGETS:
                continue
            if node.target is operator.getitem:
                self.env[node] = self.env[node.args[0]][node.args[1]]
                continue
            op = program_op(self._target(node))
            if op is None:
                schema = getattr(node.target, "_schema", node.target)
                custom = getattr(node.target, "namespace", "aten") != "aten"
                fix = ("define its out variant with torch.library, `<name>.out(<the same "
                       "arguments>, *, Tensor(a!) out) -> Tensor(a!)` (examples/custom_linear/"
                       "ops.py)" if custom
                       else "rewrite that part of the model with other operators")
                raise ExportError(f"{describe(node)} calls {schema}, which has no out "
                                  f"variant Tailor can call; {fix}")
            self.node_name = node.name
            self.origins[node.name] = origin(node)
            if node.target in PRIM_INT_OPS:
                self._prim_int_call(node, op)
            else:
                self._op_call(node, op)
        self.node_name = "output"
        outputs = self._outputs(output)

        instructions = [Instruction.kernel_call(call) for call in self.calls]
        delegates, report = [], None
        if self.partitioner is not None:
            inputs, outputs, instructions, delegates, report = self._delegate(inputs, outputs)
        self._add_write_backs(instructions)
        plan, segment = place_tensors(self.values, self.tensors, self.buffers, self.aliases,
                                      inputs, outputs, instructions)
        if delegates:
            # Backends such as XNNPACK may read up to 16 bytes past a tensor they are
            # given: keep that inside the arena and the mapped constant segment.
            plan = dataclasses.replace(plan, arena_size=plan.arena_size + BACKEND_SLACK)
            segment += b"\0" * BACKEND_SLACK
        # The operator table lists what kernel calls remain, in first-use order.
        operators = [op for op in self.operators.values()
                     if any(ins.is_kernel_call(op.qualified_name) for ins in instructions)]
        index = {op.qualified_name: i for i, op in enumerate(operators)}
        method = model.Method(
            self.name, self.values, inputs, outputs,
            [model.Operator(op.name, op.overload) for op in operators], delegates,
            [KernelCall(index[ins.target], ins.args) if ins.is_kernel_call() else
             DelegateCall(ins.target, ins.args) for ins in instructions],
            list(plan.arena_sizes))
        debug = tuple({"index": index, "kind": ins.kind,
                       "op": ins.target if ins.is_kernel_call() else
                       delegates[ins.target].backend,
                       "nodes": ins.nodes, **self.origins.get(ins.nodes[0], {}),
                       "outputs": written_tensors(self.values, ins.args, ins.num_inputs,
                                                  ins.written_by)}
                      for index, ins in enumerate(instructions))
        return BuiltMethod(method, segment, plan, len(calls), report, debug)

    def _delegate(self, inputs: list[int], outputs: list[int]):
        """Hands the lowered calls to the partitioner; renumbers what stays. Mutable
        buffers and the values copied into them stay outside the delegates."""
        buffers = sorted(self.buffers)
        sources = [vid for vid, _ in self.write_backs]
        n_in, n_out = len(inputs), len(outputs)
        inputs, outputs = inputs + buffers, outputs + sources
        constants = {vid: t.constant for vid, t in self.tensors.items()
                     if t.constant is not None}
        lowered = LoweredMethod(self.values, self.calls, constants, inputs, outputs)
        done = delegate_method(lowered, self.partitioner)
        for vid, like in lowered.derived.items():  # constants a partitioner repacked
            self.tensors[vid] = TensorData(self.tensors[like].dtype, lowered.values[vid].sizes,
                                        lowered.values[vid], lowered.constants[vid])
        self.values = done.values
        self.tensors = {done.remap[vid]: t for vid, t in self.tensors.items()
                        if vid in done.remap}
        for vid, t in self.tensors.items():
            t.tensor = self.values[vid]
        self.buffers = {done.remap[vid] for vid in self.buffers}
        self.aliases = {done.remap[out]: done.remap[buf] for out, buf in self.aliases.items()
                        if out in done.remap}
        self.write_backs = [(done.remap[vid], done.remap[buf]) for vid, buf in self.write_backs]
        return (done.inputs[:n_in], done.outputs[:n_out], done.instructions, done.delegates,
                done.report)
