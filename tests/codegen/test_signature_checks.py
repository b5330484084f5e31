"""Signature checks: a kernel defined with a signature other than its schema's fails to
compile at its definition, in its own file; one defined as declared compiles."""

import os
import subprocess

from codegen.resolve import KernelChoice, KernelPlan
from codegen.signature_checks import definition_line, signature_checks

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = "mylib::scale.out(Tensor self, float factor, *, Tensor(a!) out) -> Tensor(a!)"
PLAN = KernelPlan(False, ("mine",), (KernelChoice(
    "mylib::scale.out", "", "mylib::native::scale_out", "wrap_0", "mine", "op_scale.cpp",
    SCHEMA),), ())
KERNEL = """#include "runtime/kernel/kernel_includes.h"

namespace mylib::native {

// scale.out
::tailor::Tensor& scale_out(::tailor::KernelContext& ctx, const ::tailor::Tensor& self,
                            FACTOR factor, ::tailor::Tensor& out) {
  return out;
}

}  // namespace mylib::native
"""


def _compile(tmp_path, factor_type: str) -> subprocess.CompletedProcess:
    text = KERNEL.replace("FACTOR", factor_type)
    (tmp_path / "op_scale.cpp").write_text(text)
    (tmp_path / "selected_dtypes.h").write_text("#define TL_SELECT_ALL_DTYPES 1\n")
    shard = ['#include "op_scale.cpp"'] + signature_checks(PLAN, "op_scale.cpp", text)
    (tmp_path / "shard.cpp").write_text("\n".join(shard) + "\n")
    return subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-I", REPO, "-I",
                           str(tmp_path), "shard.cpp"], cwd=tmp_path, capture_output=True,
                          text=True)


def test_definition_line_skips_comments_naming_another_spelling():
    assert definition_line(KERNEL, "scale_out") == 6
    assert definition_line("nothing here", "scale_out") == 1


def test_matching_definition_compiles(tmp_path):
    proc = _compile(tmp_path, "double")
    assert proc.returncode == 0, proc.stderr


def test_mismatch_is_an_error_at_the_definition(tmp_path):
    proc = _compile(tmp_path, "float")  # the schema's `float` is a C++ double
    assert proc.returncode != 0
    assert ("op_scale.cpp:6:" in proc.stderr
            and "mylib::native::scale_out must be defined as ::tailor::Tensor& scale_out("
            "::tailor::KernelContext& ctx, const ::tailor::Tensor& self, double factor, "
            "::tailor::Tensor& out)" in proc.stderr), proc.stderr
