"""Build output paths are named by codegen/build_layout.py alone: a Python file that spells
one by hand ("build/...", os.path.join(REPO, "build", ...), a target directory such as
"host-shared" or "host-size-nolog") goes stale the day the layout changes, silently.
Docstrings are documentation and may show paths."""

import ast
import glob
import os
import re

from codegen import build_layout
from tests.conftest import REPO

# Files that may spell build paths, and why.
ALLOWED_FILES = {
    "codegen/build_layout.py": "the definition itself",
    "tests/codegen/test_build_layout.py": "checks the definition against spelled-out names",
    "tests/codegen/test_build_paths.py": "this scan, with examples of what it catches",
    # Link maps as the linker writes them: the attribution parses their object paths.
    "tests/size/test_size_attribution.py": "link-map fixtures",
    # setuptools' staging directory, not a scons output; setup.py runs in pip's isolated
    # build environment, where the project's modules are not importable.
    "setup.py": "setuptools build_base",
}
# Inputs to a path classifier (is this object a kernel unit's?), not paths the test
# looks for.
ALLOWED_LITERALS = {
    "tests/build_system/test_kernel_units.py": {
        "build/host/obj/kernels/kernels.portable.op_add.0123456789ab.o",
        "build/host/mlp/obj/kernels.a(kernels.portable.op_add.0123456789ab.o)",
        "build/host/obj/kernels/kernels.portable.op_add_scalar.0123456789ab.o",
        "build/host/obj/kernels/kernels.optimized.op_add.0123456789ab.o",
        "build/host/obj/kernels/portable/op_add.o"},
}
SKIP_DIRS = {".venv", "build", ".git", "__pycache__", "node_modules"}


def _target_dir_pattern() -> re.Pattern:
    """A target directory with at least one suffix: host-shared, host-xnnpack-trace,
    linux-aarch64-size-nolog, ... (plain target names are target= values, not paths)."""
    targets = [os.path.splitext(os.path.basename(p))[0]
               for p in glob.glob(os.path.join(REPO, "manifests", "targets", "*.yaml"))]
    profiles = [os.path.splitext(os.path.basename(p))[0]
                for p in glob.glob(os.path.join(REPO, "manifests", "profiles", "*.yaml"))]
    suffix_dir = build_layout.target_dir("", profile="P", log=False, trace=True, lib="shared")
    suffixes = [s for s in suffix_dir.split("-") if s and s != "P"] + profiles + [
        build_layout.target_dir("", sanitize=s).lstrip("-") for s in ("address", "thread",
                                                                      "fuzzer")]
    return re.compile(r"(?<![\w-])(%s)-(%s)(?![\w])" % (
        "|".join(sorted(map(re.escape, targets), key=len, reverse=True)),
        "|".join(map(re.escape, suffixes))))


BUILD_PREFIX = re.compile(r"(^|[\s=:'\"])%s/" % re.escape(build_layout.BUILD_DIR))


def _docstrings(tree) -> set:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _is_path_join(node) -> bool:
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr == "join"
            and isinstance(func.value, ast.Attribute) and func.value.attr == "path")


def spelled_paths(path: str, text: str, target_dirs: re.Pattern) -> list:
    """[(line, literal)] of the build paths `text` spells by hand."""
    tree = ast.parse(text, path)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if BUILD_PREFIX.search(node.value) or target_dirs.search(node.value):
                found.append((node.lineno, node.value))
        parts = (node.args if isinstance(node, ast.Call) and _is_path_join(node) else
                 [node.right] if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
                 else [])
        for arg in parts:  # os.path.join(REPO, "build", ...) and Path / "build"
            if isinstance(arg, ast.Constant) and arg.value == build_layout.BUILD_DIR:
                found.append((arg.lineno, arg.value))
    return sorted(set(found))


def _python_files():
    for root, dirs, files in os.walk(REPO):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(root, name), REPO)


def test_no_build_path_is_spelled_outside_the_layout_module():
    target_dirs = _target_dir_pattern()
    offenders = []
    for rel in _python_files():
        if rel in ALLOWED_FILES:
            continue
        with open(os.path.join(REPO, rel)) as f:
            hits = spelled_paths(rel, f.read(), target_dirs)
        offenders += ["%s:%d: %r" % (rel, line, literal) for line, literal in hits
                      if literal not in ALLOWED_LITERALS.get(rel, ())]
    assert not offenders, (
        "build output paths spelled by hand; name them through codegen/build_layout.py "
        "(output_dir, tree, runner, program, outputs, ...):\n" + "\n".join(offenders))


def test_the_scan_finds_each_way_of_spelling_a_path():
    # The checks themselves: each of these must be caught, and the docstring not.
    text = ('"""build/host/mlp/mlp.pte is fine in a docstring."""\n'
            'A = "build/test-x"\n'
            'B = os.path.join(REPO, "build", "host")\n'
            'C = tmp / "build" / "mine"\n'
            'D = os.path.join(OUT, "host-shared", "mlp")\n'
            'E = "host-xnnpack-trace"\n'
            'F = "linux-aarch64-size-nolog"\n'
            'G = ["scons", "build_dir=build/t"]\n'
            'H = f"{x} host-asan"\n'
            'OK = ("host", "host-xnnpack", "build_dir=" + BUILD, "tailor build")\n')
    hits = spelled_paths("t.py", text, _target_dir_pattern())
    assert [line for line, _ in hits] == [2, 3, 4, 5, 6, 7, 8, 9], hits
