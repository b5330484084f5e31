"""Program (program/model.py) + constant segment <-> .pte bytes: the one reader and writer.

The program goes through its flatbuffer JSON form (schema/program.fbs; union members
written as `"<field>_type": "<Member>", "<field>": {...}`), which flatc compiles against
the schema (program/flatc.py), so the bytes always follow the schema exactly; this module
then splices in the extended header and appends the 4096-aligned segment (layout in
docs/internals.md). Only this module knows the JSON form; tests that write deliberately
malformed programs use serialize_json().

CLI: python -m program.pte PROGRAM.pte   (prints the program as JSON)
"""

import dataclasses
import json
import os
import struct
import sys

from codegen.roots import PACKAGE
from program import model
from program.flatc import flatbuffer_to_json, json_to_flatbuffer

SCHEMA = os.path.join(PACKAGE, "schema", "program.fbs")

FILE_IDENTIFIER = b"TL01"
HEADER_MAGIC = b"TLH1"
HEADER_SIZE = 32
SEGMENT_ALIGNMENT = 4096


class ProgramFormatError(ValueError):
    """The bytes are not a Tailor program."""


def _pad(n: int, alignment: int) -> int:
    return (alignment - n % alignment) % alignment


def serialize(program: model.Program, segment_data: bytes = b"") -> bytes:
    """The .pte bytes of `program` with `segment_data` as its constant segment."""
    return serialize_json(to_json(program), segment_data)


def deserialize(data: bytes) -> tuple[model.Program, bytes]:
    """Inverse of serialize: (program, segment data); ProgramFormatError when `data` is
    not a program."""
    program, segment = deserialize_json(data)
    try:
        return from_json(program), segment
    except (KeyError, TypeError, ValueError) as e:
        raise ProgramFormatError(f"the program does not follow the schema: {e!r}") from None


def read_program(path: str) -> tuple[model.Program, bytes]:
    """(program, segment) of the .pte at `path`; OSError or ProgramFormatError."""
    with open(path, "rb") as f:
        return deserialize(f.read())


def serialize_json(program: dict, segment_data: bytes = b"") -> bytes:
    """serialize() for a program in flatbuffer JSON form."""
    flat = json_to_flatbuffer(SCHEMA, program, FILE_IDENTIFIER)

    (root,) = struct.unpack_from("<I", flat, 0)
    program_size = len(flat) + HEADER_SIZE
    segment_base = program_size + _pad(program_size, SEGMENT_ALIGNMENT) if segment_data else 0
    header = HEADER_MAGIC + struct.pack("<IQQQ", HEADER_SIZE, program_size, segment_base,
                                        len(segment_data))
    out = struct.pack("<I", root + HEADER_SIZE) + flat[4:8] + header + flat[8:]
    if segment_data:
        out += b"\0" * (segment_base - len(out)) + segment_data
    return out


def read_header(data: bytes, file_size: int | None = None) -> tuple[int, int, int]:
    """(program size, segment base offset, segment size) of .pte bytes; `data` may be only
    the first bytes of a file of `file_size` bytes."""
    file_size = len(data) if file_size is None else file_size
    if len(data) < 8 + HEADER_SIZE or data[4:8] != FILE_IDENTIFIER:
        raise ProgramFormatError("not a Tailor program (file identifier is not TL01)")
    if data[8:12] != HEADER_MAGIC:
        raise ProgramFormatError("missing extended header")
    _, program_size, segment_base, segment_size = struct.unpack_from("<IQQQ", data, 12)
    if program_size > file_size or segment_base + segment_size > file_size:
        raise ProgramFormatError("program is truncated")
    return program_size, segment_base, segment_size


def deserialize_json(data: bytes) -> tuple[dict, bytes]:
    """deserialize() giving the program in flatbuffer JSON form."""
    program_size, segment_base, segment_size = read_header(data)
    (root,) = struct.unpack_from("<I", data, 0)
    if not 8 + HEADER_SIZE <= root < program_size:
        raise ProgramFormatError(f"root table offset {root} lies outside the program")
    flat = struct.pack("<I", root - HEADER_SIZE) + data[4:8] + data[8 + HEADER_SIZE:program_size]
    try:
        program = flatbuffer_to_json(SCHEMA, flat)
    except ValueError as e:
        raise ProgramFormatError(f"flatbuffer does not parse: {e}") from None
    return program, data[segment_base:segment_base + segment_size]


# -- the model <-> its flatbuffer JSON form ---------------------------------------------
# Fields equal to their default are left out (flatc stores them the same either way);
# vectors are always written, since an empty vector and none are different bytes.

def _ref_json(ref) -> dict:
    return dataclasses.asdict(ref)


def _tensor_json(t: model.Tensor) -> dict:
    out = {"scalar_type": t.scalar_type, "sizes": list(t.sizes),
           "dim_order": list(t.dim_order), "dynamic": t.dynamic}
    if t.min_sizes is not None:
        out["min_sizes"] = list(t.min_sizes)
    for name in ("constant", "initial", "allocation"):  # the order the exporter fills them in
        if getattr(t, name) is not None:
            out[name] = _ref_json(getattr(t, name))
    return out


def _value_json(value: model.Value) -> dict:
    if value is None:
        return {}
    if isinstance(value, model.Tensor):
        return {"val_type": "Tensor", "val": _tensor_json(value)}
    if isinstance(value, (model.Int, model.Double, model.Bool, model.String)):
        return {"val_type": model.kind_name(value), "val": {"value": value.value}}
    return {"val_type": model.kind_name(value), "val": {"items": list(value.items)}}


def _instruction_json(instr: model.Instruction) -> dict:
    fields = {("from" if k == "from_" else k): v for k, v in dataclasses.asdict(instr).items()}
    return {"instr_type": type(instr).__name__, "instr": fields}


def method_to_json(m: model.Method) -> dict:
    return {"name": m.name, "values": [_value_json(v) for v in m.values],
            "inputs": list(m.inputs), "outputs": list(m.outputs),
            "operators": [{"name": op.name, "overload": op.overload} for op in m.operators],
            "delegates": [{"backend": d.backend, "data": list(d.data)} for d in m.delegates],
            "instructions": [_instruction_json(i) for i in m.instructions],
            "arena_sizes": list(m.arena_sizes)}


def to_json(program: model.Program) -> dict:
    """The flatbuffer JSON form of `program`."""
    return {"version": program.version,
            "methods": [method_to_json(m) for m in program.methods],
            "segments": [dataclasses.asdict(s) for s in program.segments]}


def _ref(data: dict | None, cls):
    return None if data is None else cls(**data)


def _tensor(data: dict) -> model.Tensor:
    return model.Tensor(data.get("scalar_type", "Byte"), list(data.get("sizes") or []),
                        list(data.get("dim_order") or []), bool(data.get("dynamic", False)),
                        _ref(data.get("constant"), model.ConstantRef),
                        _ref(data.get("allocation"), model.Allocation),
                        None if data.get("min_sizes") is None else list(data["min_sizes"]),
                        _ref(data.get("initial"), model.ConstantRef))


_VALUE_KINDS = {cls.__name__: cls for cls in model.VALUE_KINDS}
_INSTRUCTION_KINDS = {cls.__name__: cls for cls in model.INSTRUCTION_KINDS}


def _value(data: dict) -> model.Value:
    kind = data.get("val_type", "NONE")
    if kind == "NONE":
        return None
    payload = data.get("val") or {}
    if kind == "Tensor":
        return _tensor(payload)
    cls = _VALUE_KINDS[kind]
    if "items" in {f.name for f in dataclasses.fields(cls)}:
        return cls(list(payload.get("items") or []))
    return cls(payload["value"]) if "value" in payload else cls()


def _instruction(data: dict) -> model.Instruction:
    cls = _INSTRUCTION_KINDS[data["instr_type"]]
    payload = {("from_" if k == "from" else k): v for k, v in (data.get("instr") or {}).items()}
    defaults = {f.name: ([] if f.name == "args" else 0) for f in dataclasses.fields(cls)}
    return cls(**{**defaults, **payload})


def method_from_json(data: dict) -> model.Method:
    return model.Method(
        data.get("name", ""), [_value(v) for v in data.get("values") or []],
        list(data.get("inputs") or []), list(data.get("outputs") or []),
        [model.Operator(op.get("name", ""), op.get("overload", ""))
         for op in data.get("operators") or []],
        [model.Delegate(d.get("backend", ""), bytes(d.get("data") or []))
         for d in data.get("delegates") or []],
        [_instruction(i) for i in data.get("instructions") or []],
        list(data.get("arena_sizes") or []))


def from_json(data: dict) -> model.Program:
    """The program of its flatbuffer JSON form."""
    return model.Program(data.get("version", 0),
                         [method_from_json(m) for m in data.get("methods") or []],
                         [model.Segment(**s) for s in data.get("segments") or []])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m program.pte PROGRAM.pte", file=sys.stderr)
        return 2
    try:
        program, segment = deserialize_json(open(argv[0], "rb").read())
    except (OSError, ProgramFormatError) as e:
        print(f"{argv[0]}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(program, indent=1))
    print(f"# constant segment: {len(segment)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
