"""A copy of the repository's sources in a temporary directory, to build a variant of it
(a tree without the tracer, or with a test-only kernel library) without touching the
checkout."""

import os
import shutil
import subprocess

from tests.conftest import REPO


def copy_sources(dest: str) -> str:
    """Copies every file git tracks or would track (not build outputs) into `dest`."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        source = os.path.join(REPO, rel)
        if os.path.isfile(source):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(source, os.path.join(dest, rel))
    os.symlink(os.path.join(REPO, ".venv"), os.path.join(dest, ".venv"))
    return dest


def strip_trace_blocks(text: str) -> str:
    """`text` without its `#if TL_TRACE` blocks (their `#else` branch stays): the source
    as it would be without the tracer."""
    out = []
    frames = []  # per open #if: [is an `#if TL_TRACE`, its current branch is kept]
    for line in text.splitlines(keepends=True):
        directive = line.strip().split(" ")[0]
        enclosing_kept = all(kept for _, kept in frames)
        if directive in ("#if", "#ifdef", "#ifndef"):
            trace = line.strip() == "#if TL_TRACE"
            frames.append([trace, not trace])
            if not trace and enclosing_kept:
                out.append(line)
            continue
        if directive in ("#else", "#endif") and frames:
            trace = frames[-1][0]
            if directive == "#else":
                frames[-1][1] = trace or frames[-1][1]
            else:
                frames.pop()
            if not trace and all(kept for _, kept in frames):
                out.append(line)
            continue
        if enclosing_kept:
            out.append(line)
    return "".join(out)
