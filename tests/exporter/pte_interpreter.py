"""A reference executor for exported programs, written against the .pte contract only.

It runs a program (program/model.py, as program/pte.py reads it) the way the C++ runtime
must: planned
tensors live in one bytearray arena at their offsets, constants are read from the
segment, every KernelCall calls torch's own out-variant operator with the arguments in
schema order (inputs, outs, then non-tensor return slots), and symbolic ints are values
that sym_size / tailor_prim calls write. A wrong argument order, a wrong value kind or a
memory plan that lets a live tensor be overwritten gives wrong numbers here.
"""

import operator

import numpy as np
import torch

from exporter.scalar_types import SCALAR_TYPE_NAMES
from program import model

_DTYPES = {name: dtype for dtype, name in SCALAR_TYPE_NAMES.items()}
_CODE_TO_DTYPE = {6: torch.float32, 7: torch.float64, 4: torch.int64, 3: torch.int32,
                  11: torch.bool, 0: torch.uint8, 1: torch.int8, 5: torch.float16}
_PRIM = {"mul": operator.mul, "add": operator.add, "sub": operator.sub,
         "floordiv": operator.floordiv, "mod": operator.mod}


class Interpreter:
    def __init__(self, program: model.Program, segment: bytes):
        self.method = program.methods[0]
        self.segment = segment
        self.values = self.method.values
        self.arena = bytearray(self.method.arena_sizes[0] if self.method.arena_sizes else 0)
        self.shapes: dict[int, list[int]] = {}     # runtime shape of each tensor value
        self.scalars: dict[int, object] = {}       # runtime value of Int slots

    # -- tensors in memory -----------------------------------------------------------

    def _meta(self, vid: int) -> model.Tensor:
        value = self.values[vid]
        assert isinstance(value, model.Tensor), (vid, value)
        return value

    def _planned_bytes(self, vid: int) -> int:
        t = self._meta(vid)
        return int(np.prod(t.sizes, dtype=np.int64)) * _DTYPES[t.scalar_type].itemsize

    def read(self, vid: int) -> torch.Tensor:
        t = self._meta(vid)
        dtype = _DTYPES[t.scalar_type]
        shape = self.shapes.get(vid, t.sizes)
        n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if t.constant is not None:
            start = self.method_segment_offset(t.constant)
            raw = self.segment[start:start + n]
        elif t.allocation is not None:
            off = t.allocation.offset
            raw = bytes(self.arena[off:off + n])
        else:
            raw = b""
        flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else \
            torch.empty(0, dtype=torch.uint8)
        return flat.view(dtype).reshape(shape).clone()

    def method_segment_offset(self, ref: model.ConstantRef) -> int:
        assert ref.segment == 0
        return ref.offset

    def write(self, vid: int, tensor: torch.Tensor) -> None:
        t = self._meta(vid)
        assert tensor.dtype == _DTYPES[t.scalar_type], (vid, tensor.dtype, t)
        assert tensor.dim() == len(t.sizes), (vid, tensor.shape, t)
        if not t.dynamic:
            assert list(tensor.shape) == t.sizes, (vid, tensor.shape, t)
        raw = tensor.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
        assert len(raw) <= self._planned_bytes(vid), "tensor outgrew its planned memory"
        assert t.allocation is not None or not raw, "writing to a constant"
        if raw:
            off = t.allocation.offset
            self.arena[off:off + len(raw)] = raw
        self.shapes[vid] = list(tensor.shape)

    # -- values ----------------------------------------------------------------------

    def _scalar(self, vid: int):
        value = self.values[vid]
        if value is None:
            return None
        if vid in self.scalars:
            return self.scalars[vid]
        if isinstance(value, (model.Int, model.Double, model.Bool, model.String)):
            return value.value
        if isinstance(value, model.IntList):
            return [self._scalar(i) for i in value.items]
        if isinstance(value, (model.DoubleList, model.BoolList)):
            return list(value.items)
        if isinstance(value, model.Tensor):
            return self.read(vid)
        if isinstance(value, model.TensorList):
            return [self.read(i) for i in value.items]
        if isinstance(value, model.OptionalTensorList):
            return [None if i < 0 else self.read(i) for i in value.items]
        raise AssertionError(value)

    def _convert(self, arg_type, v):
        kind = arg_type.kind()
        if v is None:
            return None
        if kind == "OptionalType":
            return self._convert(arg_type.getElementType(), v)
        if kind == "ScalarTypeType":
            return _CODE_TO_DTYPE[v]
        if kind == "MemoryFormatType":
            return [torch.contiguous_format, torch.preserve_format, torch.channels_last][v]
        if kind == "LayoutType":
            return torch.strided
        if kind == "DeviceObjType":
            return torch.device("cpu")
        return v

    # -- execution -------------------------------------------------------------------

    def run(self, inputs: list[torch.Tensor]) -> list:
        for vid, x in zip(self.method.inputs, inputs, strict=True):
            self.write(vid, x)
        for call in self.method.instructions:
            assert isinstance(call, model.KernelCall), call
            op = self.method.operators[call.op_index]
            self._call(op.name, op.overload, call.args)
        return [self._scalar(v) for v in self.method.outputs]

    def _call(self, name: str, overload: str, args: list[int]) -> None:
        namespace, base = name.split("::")
        if namespace == "tailor_prim":
            a, b, ret = args
            self.scalars[ret] = _PRIM[base](self._scalar(a), self._scalar(b))
            return
        opoverload = getattr(getattr(getattr(torch.ops, namespace), base), overload or "default")
        schema = opoverload._schema
        ins = [a for a in schema.arguments if not a.is_out]
        outs = [a for a in schema.arguments if a.is_out]
        scalar_returns = [r for r in schema.returns if r.type.kind() != "TensorType"
                          and not (outs and r.type.kind() == "ListType")]
        assert len(args) == len(ins) + len(outs) + len(scalar_returns), (name, args)
        positional, kwargs = [], {}
        for a, vid in zip(ins, args):
            v = self._convert(a.real_type, self._scalar(vid))
            if a.kwarg_only:
                kwargs[a.name] = v
            else:
                positional.append(v)
        out_ids = args[len(ins):len(ins) + len(outs)]
        out_targets = []
        for a, vid in zip(outs, out_ids):
            if isinstance(self.values[vid], model.TensorList):
                items = self.values[vid].items
                kwargs[a.name] = [torch.empty(0, dtype=_DTYPES[self._meta(i).scalar_type])
                                  for i in items]
                out_targets.append((items, kwargs[a.name]))
            else:
                kwargs[a.name] = torch.empty(0, dtype=_DTYPES[self._meta(vid).scalar_type])
                out_targets.append(([vid], [kwargs[a.name]]))
        result = opoverload(*positional, **kwargs)
        for ids, tensors in out_targets:
            for vid, t in zip(ids, tensors, strict=True):
                self.write(vid, t)
        if scalar_returns:
            slots = args[len(ins) + len(outs):]
            results = result if isinstance(result, tuple) else (result,)
            for slot, r in zip(slots, results, strict=True):
                self.scalars[slot] = r


def run_program(program: model.Program, segment: bytes, inputs: list[torch.Tensor]) -> list:
    return Interpreter(program, segment).run(inputs)
