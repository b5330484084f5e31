"""The runtime built without trace=1 holds nothing of the tracer: its runner is byte for
byte the runner built from a copy of the sources without the tracer (runtime/trace/,
runner/trace/ and every `#if TL_TRACE` block removed). So the tracer costs the default
runtime no byte and no instruction, and no log call's line number moves."""

import os
import shutil
import subprocess

from tests.conftest import REPO, SCONS, run_scons
from tests.trace.source_tree import copy_sources, strip_trace_blocks

BUILD = "build/test-trace-default"
CACHE = os.path.join(REPO, "build", "test-trace-cache")
RUNNER = os.path.join(BUILD, "host", "mlp", "bin", "runner")


def test_default_runner_is_byte_identical_to_one_without_the_tracer(tmp_path):
    run_scons("model=mlp", "build_dir=" + BUILD, "cache=" + CACHE)
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
    build = subprocess.run([SCONS, "-j2", "model=mlp", "build_dir=" + BUILD, "cache=" + CACHE],
                           cwd=tree, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    with open(os.path.join(REPO, RUNNER), "rb") as a, open(os.path.join(tree, RUNNER), "rb") as b:
        assert a.read() == b.read(), "the default runner changed with the tracer's sources"
    symbols = subprocess.run(["nm", "-C", os.path.join(REPO, RUNNER)], capture_output=True,
                             text=True, check=True).stdout
    assert "EventTracer" not in symbols
