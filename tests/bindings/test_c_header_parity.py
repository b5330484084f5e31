"""tailor/c_library.py mirrors c_api/tailor.h by hand; this keeps the two in step.

The header is the definition. Its prototypes and struct fields are read from the text;
its constants, enum values and struct layout come from the C compiler (a small program
generated from what was read), so a change to either side alone fails here."""

import ctypes
import os
import re
import subprocess

import pytest

from tailor import c_library
from tests.conftest import REPO

HEADER = os.path.join(REPO, "c_api", "tailor.h")

# C spellings of the header's types -> the ctypes type the mirror must use.
_C_TYPES = {
    "void": None,
    "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64,
    "size_t": ctypes.c_size_t,
    "tl_status": ctypes.c_int,
    "tl_dtype": ctypes.c_int,
    "const char*": ctypes.c_char_p,
    "const char**": ctypes.POINTER(ctypes.c_char_p),
    "size_t*": ctypes.POINTER(ctypes.c_size_t),
    "const int64_t*": ctypes.POINTER(ctypes.c_int64),
    "const void*": ctypes.c_void_p,
    "void*": ctypes.c_void_p,
    "tl_program*": ctypes.c_void_p,
    "const tl_program*": ctypes.c_void_p,
    "tl_program**": ctypes.POINTER(ctypes.c_void_p),
    "tl_method*": ctypes.c_void_p,
    "const tl_method*": ctypes.c_void_p,
    "tl_method**": ctypes.POINTER(ctypes.c_void_p),
    "const tl_method_options*": ctypes.POINTER(c_library.MethodOptions),
    "tl_value_info*": ctypes.POINTER(c_library.ValueInfo),
}

_STRUCTS = {"tl_value_info": c_library.ValueInfo, "tl_method_options": c_library.MethodOptions}


def _header() -> str:
    with open(HEADER) as f:
        text = f.read()
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)  # comments out, declarations kept


def _c_type(spelling: str):
    spelling = re.sub(r"\s*\*", "*", " ".join(spelling.split()))
    assert spelling in _C_TYPES, f"c_api/tailor.h uses {spelling!r}: add its ctypes type here"
    return _C_TYPES[spelling]


def _prototypes() -> dict:
    """name -> (result type, [argument types]) of every tl_ function the header declares."""
    found = {}
    for result, name, args in re.findall(r"^([\w ]+?\**)\s*\b(tl_\w+)\(([^)]*)\);", _header(),
                                         flags=re.M):
        params = [] if args.strip() == "void" else \
            [re.sub(r"\s*\b\w+$", "", p.strip()) for p in args.split(",")]
        found[name] = (_c_type(result), [_c_type(p) for p in params])
    return found


def _struct_fields(name: str) -> list:
    body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (name, name), _header(), re.S).group(1)
    return re.findall(r"(\w+)(?:\[\w+\])?;", body)


def _enum_names(name: str) -> list:
    body = re.search(r"typedef enum %s \{(.*?)\} %s;" % (name, name), _header(), re.S).group(1)
    return re.findall(r"(\w+)\s*=", body)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict:
    """What the C compiler says of the header: name -> value."""
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "c_api/tailor.h"',
             "int main(void) {"]

    def show(label, expr):
        lines.append(f'  printf("{label} %llu\\n", (unsigned long long)({expr}));')

    for macro in ("TL_C_API_VERSION", "TL_MAX_RANK"):
        show(macro, macro)
    for enum in ("tl_dtype", "tl_value_kind"):
        for value in _enum_names(enum):
            show(value, value)
    for struct in _STRUCTS:
        show(f"sizeof.{struct}", f"sizeof({struct})")
        for field in _struct_fields(struct):
            show(f"{struct}.{field}", f"offsetof({struct}, {field})")
    lines += ["  return 0;", "}"]
    directory = tmp_path_factory.mktemp("c_header")
    source, exe = directory / "facts.c", directory / "facts"
    source.write_text("\n".join(lines) + "\n")
    subprocess.run(["cc", "-std=c11", "-I", REPO, str(source), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return {k: int(v) for k, v in (line.split() for line in out.splitlines())}


def test_every_function_has_the_headers_signature():
    header = _prototypes()
    assert set(header) == set(c_library._SIGNATURES), \
        "functions differ between c_api/tailor.h and tailor/c_library.py"
    for name, (result, params) in header.items():
        mirror_result, mirror_params = c_library._SIGNATURES[name]
        assert (mirror_result, mirror_params) == (result, params), name


def test_constants_match(compiled):
    assert c_library.C_API_VERSION == compiled["TL_C_API_VERSION"]
    assert c_library.MAX_RANK == compiled["TL_MAX_RANK"]
    kinds = {v: compiled[v] for v in _enum_names("tl_value_kind")}
    assert [c_library.KIND_TENSOR, c_library.KIND_INT, c_library.KIND_DOUBLE,
            c_library.KIND_BOOL, c_library.KIND_OTHER] == \
        [kinds["TL_VALUE_" + k] for k in ("TENSOR", "INT", "DOUBLE", "BOOL", "OTHER")]
    assert sorted(c_library.DTYPES.values()) == \
        sorted(compiled[v] for v in _enum_names("tl_dtype"))


@pytest.mark.parametrize("struct", sorted(_STRUCTS))
def test_struct_layout_matches(struct, compiled):
    mirror = _STRUCTS[struct]
    assert [f[0] for f in mirror._fields_] == _struct_fields(struct)
    assert ctypes.sizeof(mirror) == compiled[f"sizeof.{struct}"]
    for field in _struct_fields(struct):
        assert getattr(mirror, field).offset == compiled[f"{struct}.{field}"], field
