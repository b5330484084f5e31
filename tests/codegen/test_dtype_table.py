"""codegen/dtypes.py is the one Python table of dtypes; the schema, the runtime's C++ enum
and the exporter's torch mapping spell the same facts, and fail here when one changes
alone (the C API's tl_dtype: tests/bindings/test_c_header_parity.py)."""

import os
import re
import subprocess

from codegen.dtypes import DTYPE_NAMES, ITEM_SIZES, SCALAR_TYPE_CODES
from tests.conftest import REPO


def test_the_schema_enum_is_the_table():
    with open(os.path.join(REPO, "schema", "program.fbs")) as f:
        body = re.search(r"enum ScalarType : byte \{(.*?)\}", f.read(), re.S).group(1)
    assert {name: int(code) for name, code in re.findall(r"(\w+) = (\d+)", body)} == \
        SCALAR_TYPE_CODES


def test_the_runtime_enum_is_the_table(tmp_path):
    source = tmp_path / "dtypes.cpp"
    source.write_text(
        '#include <stdio.h>\n#include "runtime/core/scalar_type.h"\n'
        "int main() {\n"
        "  for (int code = 0; code < tailor::kNumScalarTypeCodes; ++code) {\n"
        "    if (!tailor::is_valid_scalar_type(code)) continue;\n"
        "    const auto t = static_cast<tailor::ScalarType>(code);\n"
        '    printf("%s %d %zu\\n", tailor::scalar_type_name(t), code, tailor::element_size(t));\n'
        "  }\n}\n")
    subprocess.run(["g++", "-std=c++17", "-I", REPO, str(source), "-o", str(tmp_path / "dtypes")],
                   check=True)
    out = subprocess.run([str(tmp_path / "dtypes")], capture_output=True, text=True,
                         check=True).stdout
    rows = [line.split() for line in out.splitlines()]
    assert {name: int(code) for name, code, _ in rows} == SCALAR_TYPE_CODES
    assert {name: int(size) for name, _, size in rows} == ITEM_SIZES


def test_the_exporters_torch_mapping_is_the_table():
    from exporter.scalar_types import SCALAR_TYPE_CODES as TORCH_CODES, SCALAR_TYPE_NAMES
    assert sorted(SCALAR_TYPE_NAMES.values()) == sorted(SCALAR_TYPE_CODES)
    for dtype, name in SCALAR_TYPE_NAMES.items():
        assert TORCH_CODES[dtype] == SCALAR_TYPE_CODES[name], name
        assert dtype.itemsize == ITEM_SIZES[name], name
    assert sorted(DTYPE_NAMES) == sorted(SCALAR_TYPE_CODES)
