"""Rendering: generated files match tests/codegen/golden/<case>/, and every golden compiles.

`pytest tests/codegen --update-goldens` rewrites the goldens from the current templates.
"""

import os
import re
import shutil
import subprocess
import textwrap

import pytest

from codegen.kernel_manifest import parse_library
from codegen.oplist import OpList, OpUse
from codegen.render import OUTPUTS, render_files
from codegen.resolve import parse_plan, plan_to_yaml, resolve_kernels
from codegen_helpers import GOLDEN_DIR

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNTIME_HEADERS = ("runtime/kernel/registry.h", "runtime/kernel/kernel_includes.h",
                   "runtime/kernel/dtype_selection.h")

PORTABLE = """
- op: addmm.out
  kernels: [{arg_meta: null, kernel_name: tailor::addmm_out}]
- op: relu.out
  type_alias: {T0: [Float, Double]}
  dim_order_alias: {D0: [[0, 1]]}
  kernels:
    - arg_meta: {self: [T0, D0], out: [T0, D0]}
      kernel_name: tailor::relu_out
- op: relu.out
  kernels: [{arg_meta: null, kernel_name: tailor::relu_out}]
- op: view_copy.out
  kernels: [{arg_meta: null, kernel_name: tailor::view_copy_out}]
"""
PRIM = """
- op: sym_size.int
  kernels: [{arg_meta: null, kernel_name: tailor::prim::sym_size_int}]
- func: tailor_prim::mul.int(int a, int b) -> int
  kernels: [{arg_meta: null, kernel_name: tailor::prim::mul_int}]
  source: kernels/prim/op_int_arith.cpp
"""
# A Float-only relu.out ahead of PORTABLE's: each library's kernel gets its own dtype row.
FAST = """
- op: relu.out
  kernels:
    - arg_meta: null
      dtypes: [Float]
      kernel_name: fast::relu_out
"""
# Custom ops outside namespace tailor, covering every row of the schema -> C++ table.
MYLIB = """
- func: mylib::everything.out(Tensor a, Tensor? b, Tensor[] c, Tensor?[] d, Scalar e,
    Scalar? f, int g, SymInt[] h, int[2]? i, float j, float[]? k, bool l, bool[3] m, str n,
    str? o, ScalarType p, ScalarType? q, Layout? r, MemoryFormat? s, Device? t, Generator? u,
    *, Tensor(a!) out) -> Tensor(a!)
  kernels: [{arg_meta: null, kernel_name: mylib::everything_out}]
- func: mylib::top2.out(Tensor self, int k, *, Tensor(a!) values, Tensor(b!) indices)
    -> (Tensor(a!) values, Tensor(b!) indices)
  kernels: [{arg_meta: null, kernel_name: mylib::top2_out}]
- func: mylib::split.out(Tensor self, int[] sizes, *, Tensor(a!)[] out) -> ()
  kernels: [{arg_meta: null, kernel_name: mylib::split_out}]
- func: mylib::is_big(Tensor self, float limit) -> bool
  kernels: [{arg_meta: null, kernel_name: mylib::detail::is_big}]
- func: mylib::ratio(int a, int b) -> float
  kernels: [{arg_meta: null, kernel_name: mylib::ratio}]
"""


def _plan(aten, manifests: dict[str, str], uses, select_all=False):
    libraries = [parse_library(textwrap.dedent(text), f"manifests/kernels/{name}.yaml", aten)
                 for name, text in manifests.items()]
    return resolve_kernels(OpList(tuple(uses)), libraries, select_all)


def _use(op, *keys, dtypes=(), all_dtypes=False):
    return OpUse(op, tuple(dtypes), all_dtypes, kernel_keys=tuple((k, ("m",)) for k in keys),
                 models=("m",) if keys else ())


CASES = {
    "mlp": lambda aten: _plan(aten, {"portable": PORTABLE, "prim": PRIM}, [
        _use("aten::addmm.out", "Float;0|Float;0,1|Float;0,1|Float;0,1", dtypes=["Float"]),
        _use("aten::relu.out", "Float;0,1|Float;0,1", "Long;0|Long;0",
             dtypes=["Float", "Long"]),
        _use("aten::sym_size.int", "Float;0,1", dtypes=["Float"]),
        _use("aten::view_copy.out", "Float;0,1|Float;0", dtypes=["Float"]),
        _use("tailor_prim::mul.int", "")]),
    "all_types": lambda aten: _plan(aten, {"mylib": MYLIB}, [
        _use(op, all_dtypes=True) for op in ("mylib::everything.out", "mylib::top2.out",
                                             "mylib::split.out", "mylib::is_big",
                                             "mylib::ratio")]),
    "select_all": lambda aten: _plan(aten, {"portable": PORTABLE, "prim": PRIM}, [],
                                     select_all=True),
    "empty": lambda aten: _plan(aten, {"portable": PORTABLE}, []),
    "two_libraries": lambda aten: _plan(aten, {"fast": FAST, "portable": PORTABLE}, [
        _use("aten::relu.out", "Float;0,1|Float;0,1", "Long;0|Long;0",
             dtypes=["Float", "Long"])]),
}


@pytest.fixture(params=sorted(CASES))
def case(request, aten, update_goldens):
    """(case name, golden dir), with the goldens rewritten first under --update-goldens."""
    name = request.param
    files = render_files(CASES[name](aten))
    golden = os.path.join(GOLDEN_DIR, name)
    if update_goldens:
        shutil.rmtree(golden, ignore_errors=True)
        os.makedirs(golden)
        for file, text in files.items():
            with open(os.path.join(golden, file), "w") as f:
                f.write(text)
    return name, golden, files


def test_rendering_matches_golden(case):
    name, golden, files = case
    assert sorted(files) == sorted(OUTPUTS)
    for file, text in files.items():
        path = os.path.join(golden, file)
        assert os.path.exists(path), f"{path} missing: run pytest --update-goldens"
        with open(path) as f:
            assert text == f.read(), f"{path} differs: review, then pytest --update-goldens"


def test_rendering_is_deterministic(aten):
    assert render_files(CASES["mlp"](aten)) == render_files(CASES["mlp"](aten))


def test_table_is_sorted_with_strcmp(case):
    _, _, files = case
    rows = re.findall(r'^    \{"([^"]*)", "([^"]*)", &wrap_\d+\}', files["register_kernels.cpp"],
                      re.M)
    as_bytes = [(op.encode(), key.encode()) for op, key in rows]
    assert as_bytes == sorted(as_bytes)


def test_generated_shape(aten):
    files = render_files(CASES["mlp"](aten))
    for text in files.values():
        assert text.startswith("// @generated by codegen/render.py. Do not edit.\n")
    assert '{"portable", "relu.out", 0x50u},  // Float, Long' in files["selected_dtypes.h"]
    assert "  *args[2] = EValue(::tailor::prim::native::mul_int(" in files["register_kernels.cpp"]
    assert "const size_t kNumKernels = 6;" in files["register_kernels.cpp"]
    assert "#define TL_SELECT_ALL_DTYPES 1" in render_files(CASES["select_all"](aten))[
        "selected_dtypes.h"]


def _compile(golden: str, source: str) -> None:
    proc = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra",
                           "-Werror", "-Wno-unused-parameter", f"-I{REPO}", f"-I{golden}",
                           "-x", "c++", "-"], input=source, capture_output=True, text=True)
    assert proc.returncode == 0, f"{golden}: {source!r} does not compile:\n{proc.stderr}"


@pytest.mark.skipif(not all(os.path.exists(os.path.join(REPO, h)) for h in RUNTIME_HEADERS),
                    reason="runtime headers not written yet: " + ", ".join(RUNTIME_HEADERS))
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not found")
def test_every_golden_compiles(case):
    _, golden, _ = case
    _compile(golden, '#include "register_kernels.cpp"\n')
    _compile(golden, '#include "functions.h"\n')
    # selected_dtypes.h is read through dtype_selection.h, which defines DtypeSelection.
    _compile(golden, '#include "runtime/kernel/dtype_selection.h"\n'
                     'static_assert(sizeof(tailor::DtypeSelection) > 0, "");\n')


def _kernel_defines(library: str, source: str = "<stdin>", ops: str = "relu.out") -> str:
    return (f'#define TL_KERNEL_LIBRARY "{library}"\n#define TL_KERNEL_SOURCE "{source}"\n'
            f'#define TL_KERNEL_OPS "{ops}"\n')


def _compile_error(golden: str, source: str) -> str:
    proc = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{REPO}", f"-I{golden}",
                           "-x", "c++", "-"], capture_output=True, text=True, input=source)
    assert proc.returncode != 0, f"{source!r} compiled"
    return proc.stderr


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not found")
def test_each_library_reads_its_own_mask():
    # Two kernels of the same op name in one build read their own library's row.
    golden = os.path.join(GOLDEN_DIR, "two_libraries")
    undefine = "#undef TL_KERNEL_LIBRARY\n#undef TL_KERNEL_SOURCE\n#undef TL_KERNEL_OPS\n"
    _compile(golden, '#include "runtime/kernel/dtype_selection.h"\n' + _kernel_defines("portable")
             + 'static_assert(TL_SELECTED_DTYPE_MASK("relu.out") == 0x10u, "Long");\n'
             + undefine + _kernel_defines("fast")
             + 'static_assert(TL_SELECTED_DTYPE_MASK("relu.out") == 0x40u, "Float");\n')
    # Outside a kernel unit, a selective build names no library: a compile error, not a union.
    assert "TL_KERNEL_LIBRARY" in _compile_error(
        golden, '#include "runtime/kernel/dtype_selection.h"\n'
                'constexpr unsigned m = TL_SELECTED_DTYPE_MASK("relu.out");\n')


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not found")
def test_a_kernel_unit_reads_its_own_rows_without_the_builds_selection(tmp_path):
    # A kernel unit (templates/kernel_unit.cpp.j2) carries its rows: no selected_dtypes.h
    # is on the include path, and the build's (golden) one is not read when it is.
    unit = (_kernel_defines("fast") + '#define TL_KERNEL_DTYPES {"fast", "relu.out", 0x48u}\n'
            '#include "runtime/kernel/dtype_selection.h"\n'
            'static_assert(TL_SELECTED_DTYPE_MASK("relu.out") == 0x48u, "its row");\n')
    _compile(str(tmp_path), unit)
    _compile(os.path.join(GOLDEN_DIR, "two_libraries"), unit)


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not found")
def test_masks_are_read_only_by_their_kernel_source_for_its_own_ops(tmp_path):
    golden = os.path.join(GOLDEN_DIR, "two_libraries")
    # A header's inline code, emitted by the units of two libraries' kernels and kept once
    # by the linker, would run one unit's mask in the other: reading one there stops the
    # compile, naming the rule.
    header = tmp_path / "shared_util.h"
    header.write_text('#pragma once\nconstexpr unsigned kShared = TL_SELECTED_DTYPE_MASK("relu.out");\n')
    error = _compile_error(golden, '#include "runtime/kernel/dtype_selection.h"\n'
                           + _kernel_defines("portable") + f'#include "{header}"\n')
    assert "dtype_mask_read_outside_its_kernel_source" in error, error
    # An op name the manifest does not give this source (a typo) would select nothing.
    error = _compile_error(golden, '#include "runtime/kernel/dtype_selection.h"\n'
                           + _kernel_defines("portable", ops="relu.out|add.out")
                           + 'constexpr unsigned m = TL_SELECTED_DTYPE_MASK("relu_out");\n')
    assert "op_name_not_declared_for_this_kernel_source" in error, error


def test_a_kernel_row_points_at_its_prepack_hook(aten):
    # prepack.h: the row names the kernel's KernelPrepack, declared once above the table.
    hooked = PORTABLE.replace("kernel_name: tailor::addmm_out}",
                              "kernel_name: tailor::addmm_out, prepack: my::ns::kHook}")
    uses = [_use("aten::addmm.out", "Float;0|Float;0,1|Float;0,1|Float;0,1", dtypes=["Float"])]
    plan = _plan(aten, {"portable": hooked}, uses)
    assert parse_plan(plan_to_yaml(plan), "plan.yaml") == plan
    table = render_files(plan)["register_kernels.cpp"]
    assert "namespace my::ns {\nextern const ::tailor::KernelPrepack kHook;" in table
    [row] = [line for line in table.splitlines() if line.startswith('    {"aten::addmm.out"')]
    assert row.split("}")[0].endswith(", 0, &::my::ns::kHook")
    # Only a table with a hook links the runtime's prepack path (method_prepack.cpp).
    assert "kPrepackPath = &internal::kMethodPrepack;" in table
    plain = render_files(_plan(aten, {"portable": PORTABLE}, uses))["register_kernels.cpp"]
    assert "kPrepackPath = nullptr;" in plain and "kMethodPrepack" not in plain


def test_each_kernel_row_carries_its_scratch(aten):
    # kernel_scratch.h: a method's slices are as large as the most any kernel it calls
    # takes, read from the table's rows; a kernel taking none leaves the field out.
    big = PORTABLE.replace("kernel_name: tailor::addmm_out}",
                           "kernel_name: tailor::addmm_out, scratch_bytes: 4096}")
    small = big.replace("kernel_name: tailor::view_copy_out}",
                        "kernel_name: tailor::view_copy_out, scratch_bytes: 64}")
    uses = [_use("aten::addmm.out", "Float;0|Float;0,1|Float;0,1|Float;0,1", dtypes=["Float"]),
            _use("aten::view_copy.out", "Float;0,1|Float;0", dtypes=["Float"])]
    plan = _plan(aten, {"portable": small}, uses)
    assert plan.scratch_bytes == 4096
    assert parse_plan(plan_to_yaml(plan), "plan.yaml") == plan
    table = render_files(plan)["register_kernels.cpp"]
    rows = {line.split('"')[1]: line for line in table.splitlines()
            if line.startswith('    {"aten::')}
    assert rows["aten::addmm.out"].split("}")[0].endswith(", 4096")
    assert rows["aten::view_copy.out"].split("}")[0].endswith(", 64")
    without = _plan(aten, {"portable": small}, uses[1:])
    assert without.scratch_bytes == 64
    mlp = render_files(CASES["mlp"](aten))["register_kernels.cpp"]
    assert all(line.split("}")[0].endswith("u") for line in mlp.splitlines()
               if line.startswith('    {"aten::'))  # the dtype mask ends each row
