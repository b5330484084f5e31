"""Kernel units (site_scons/kernel_units.py): an object per selected kernel source, named
by its source and its text, so builds that select a source alike share its object."""

import os
import re
import shutil
import sys

import pytest

from codegen import build_layout
from tests.build_system.test_project import make_project
from tests.conftest import REPO, run_scons

sys.path.insert(0, os.path.join(REPO, "site_scons"))
import kernel_units  # noqa: E402


def test_a_second_model_set_compiles_only_the_kernels_it_adds():
    """mlp_ln after mlp in one build directory takes mlp's kernel objects as they are
    (compiled or, through the tests' shared cache, retrieved) and compiles only the
    kernels mlp does not have."""
    shutil.rmtree(os.path.join(REPO, build_layout.tree("test-units")), ignore_errors=True)
    build = "build_dir=" + build_layout.tree("test-units")
    made = re.compile(r"(?:compiling \S*/gen/kernels/(\S+)\.cpp"
                      r"|Retrieved `\S*/obj/kernels/(\S+)\.o' from cache)")
    first = {a or b for a, b in made.findall(run_scons("model=mlp", build).stdout)}
    assert any(name.startswith("kernels.optimized.op_addmm.") for name in first), first
    proc = run_scons("model=mlp_ln", "run=1", build, "cache=")
    second = {a for a, _ in made.findall(proc.stdout)}
    assert second and not second & first, proc.stdout
    assert "check passed" in proc.stdout


def test_a_kernel_plan_about_to_change_does_not_compile_the_units_it_had(tmp_path):
    """SCons reads the kernel plan for the units before it rebuilds the plan. A unit only
    the old plan has (its kernel's schema has since changed) must not be compiled from
    its old text on the way, which a parallel build did: the signature check failed."""
    make_project(tmp_path)
    args = ("project=%s" % tmp_path, "model=tiny", "target=mine")
    run_scons(*args)
    plan = build_layout.kernel_plan(os.path.join(
        tmp_path, build_layout.output_dir(["tiny"], target="mine")))
    with open(plan) as f:
        text = f.read()
    old = "schema: aten::relu.out(Tensor self, *"
    assert old in text, text
    with open(plan, "w") as f:  # as if the kernel had taken one more argument
        f.write(text.replace(old, "schema: aten::relu.out(Tensor self, int stale, *"))
    with open(tmp_path / "manifests" / "kernels" / "mine.yaml", "a") as f:
        f.write("# edited: the plan is resolved again\n")
    proc = run_scons(*args, "run=1")
    assert "check passed" in proc.stdout, proc.stdout


@pytest.mark.parametrize("path, matches", [
    ("build/host/obj/kernels/kernels.portable.op_add.0123456789ab.o", True),
    ("build/host/mlp/obj/kernels.a(kernels.portable.op_add.0123456789ab.o)", True),
    ("build/host/obj/kernels/kernels.portable.op_add_scalar.0123456789ab.o", False),
    ("build/host/obj/kernels/kernels.optimized.op_add.0123456789ab.o", False),
    ("build/host/obj/kernels/portable/op_add.o", False)])
def test_unit_objects_are_recognised_by_their_source(path, matches):
    pattern = kernel_units.object_pattern("kernels/portable/op_add.cpp")
    assert bool(re.search(pattern, path)) == matches
