"""Op names in kernel sources: every string literal of a kernel source that spells an
operator ("add.out", "llm::cache_attention.out": the names its dtype switches, masks and
messages use) must be an op its kernel libraries give that source. A selective build
already stops on a mask read for another op, but only for the sources it compiles; this
checks every source of every shipped library, and messages too."""

import glob
import os
import re
from collections import defaultdict

from codegen.kernel_manifest import load_library, manifest_op_name
from codegen.schema import load_aten_schemas
from tests.conftest import REPO

LIBRARIES = sorted(glob.glob(os.path.join(REPO, "manifests", "kernels", "*.yaml"))
                   + glob.glob(os.path.join(REPO, "kernels", "*", "*.yaml"))
                   + glob.glob(os.path.join(REPO, "examples", "*", "*.yaml")))
_OP_LITERAL = re.compile(r'"((?:[a-z_][a-z0-9_]*::)?[a-z_][a-z0-9_]*\.[A-Za-z0-9_]+)"')


def declared_ops() -> dict:
    """Kernel source -> the ops (as manifests spell them) its libraries give it."""
    aten = load_aten_schemas()
    ops = defaultdict(set)
    for path in LIBRARIES:
        if "kernel_name:" not in open(path).read():
            continue  # a model manifest beside an example's kernels
        for kernel in load_library(path, aten).kernels:
            ops[kernel.source].add(manifest_op_name(kernel.op))
    return ops


def undeclared(source_text: str, ops: set) -> list:
    """The op-like string literals of a kernel source that are not among `ops`."""
    return sorted({m.group(1) for m in _OP_LITERAL.finditer(source_text)} - ops)


def test_a_typo_in_an_op_name_is_found():
    text = 'TL_SWITCH_REAL_TYPES(dtype, ctx, "add.out", T, [&] {});\n' \
           'constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("add.Scalar_ou");\n'
    assert undeclared(text, {"add.out", "add.Scalar_out"}) == ["add.Scalar_ou"]


def test_every_op_name_a_kernel_source_spells_is_declared_for_it():
    ops = declared_ops()
    assert len(ops) > 100, "the kernel libraries were not found"
    wrong = {}
    for source, names in sorted(ops.items()):
        with open(os.path.join(REPO, source)) as f:
            found = undeclared(f.read(), names)
        if found:
            wrong[source] = found
    assert not wrong, ("op names no manifest gives their kernel source (a typo selects no "
                       f"dtype): {wrong}")
