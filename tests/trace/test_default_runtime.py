"""The runtime built without trace=1 holds nothing of the tracer: its runner is byte for
byte the runner built from a copy of the sources without the tracer (runtime/trace/,
runner/trace/ and every `#if TL_TRACE` block removed). So the tracer costs the default
runtime no byte and no instruction, and no log call's line number moves."""

import os
import shutil
import subprocess

from codegen import build_layout
from tests.conftest import REPO
from tests.trace.source_tree import copy_sources, strip_trace_blocks

BUILD = build_layout.tree("test-trace-default")
CACHE = os.path.join(REPO, build_layout.tree("test-trace-cache"))
RUNNER = build_layout.runner(build_layout.output_dir(["mlp"], build_dir=BUILD))


def _build(tree: str) -> str:
    """The default mlp runner built in `tree`; its path."""
    # The copy's own venv path: scons then names the venv's headers inside the tree.
    venv = os.path.join(tree, ".venv", "bin")
    build = subprocess.run([os.path.join(venv, "python"), os.path.join(venv, "scons"), "-j2",
                            "model=mlp", "build_dir=" + BUILD, "cache=" + CACHE],
                           cwd=tree, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return os.path.join(tree, RUNNER)


def test_default_runner_is_byte_identical_to_one_without_the_tracer(tmp_path):
    # Both from copies, so the headers' paths that asserts embed (the venv's flatbuffers)
    # are spelled the same.
    reference = _build(copy_sources(str(tmp_path / "with_tracer")))
    tree = copy_sources(str(tmp_path / "src"))
    for folder in ("runtime/trace", "runner/trace"):
        shutil.rmtree(os.path.join(tree, folder))
    stripped = []
    for root, _, files in os.walk(tree):
        for name in files:
            path = os.path.join(root, name)
            if not name.endswith((".h", ".cpp")) or os.path.islink(path):
                continue
            with open(path) as f:
                text = f.read()
            if "TL_TRACE" in text:
                with open(path, "w") as f:
                    f.write(strip_trace_blocks(text))
                stripped.append(os.path.relpath(path, tree))
    assert "runtime/executor/method.h" in stripped and "runner/runner.cpp" in stripped
    stripped_runner = _build(tree)
    with open(reference, "rb") as a, open(stripped_runner, "rb") as b:
        assert a.read() == b.read(), "the default runner changed with the tracer's sources"
    symbols = subprocess.run(["nm", "-C", reference], capture_output=True,
                             text=True, check=True).stdout
    assert "EventTracer" not in symbols
