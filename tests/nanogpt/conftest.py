"""The nanogpt build the C++ tests share: `scons model=nanogpt,nanogpt_nocache run=1`
(the demo GPT with and without its KV cache, one runtime and app) into its own build_dir
(incremental: SCons rebuilds only what changed), and helpers to run the app."""

import os
import subprocess
from dataclasses import dataclass

import pytest

from examples.nanogpt.trained import MERGES, MODEL, VOCAB
from tests.conftest import REPO, run_scons

BUILD_DIR = "build/test-nanogpt"
OUT = os.path.join(REPO, BUILD_DIR, "host", "nanogpt+nanogpt_nocache")


@dataclass(frozen=True)
class NanoGPT:
    app: str        # build/.../bin/nanogpt
    program: str    # build/.../nanogpt.pte

    def run(self, *args: str, stdin: bytes = b"", vocab: str = VOCAB,
            merges: str = MERGES, program: bool = True) -> subprocess.CompletedProcess:
        command = [self.app] + ([self.program] if program else [])
        command += ["--vocab", vocab, "--merges", merges, *args]
        return subprocess.run(command, input=stdin, capture_output=True, timeout=300)


@pytest.fixture(scope="session")
def nanogpt() -> NanoGPT:
    # The build tracks the factory's .py files, not the weights file it reads: export
    # again when the weights are newer than the program.
    for name in ("nanogpt", "nanogpt_nocache"):
        pte = os.path.join(OUT, name + ".pte")
        if os.path.exists(pte) and os.path.getmtime(pte) < os.path.getmtime(MODEL):
            os.remove(pte)
    proc = run_scons("model=nanogpt,nanogpt_nocache", "run=1", "build_dir=" + BUILD_DIR)
    assert "check passed" in proc.stdout or "is up to date" in proc.stdout, proc.stdout
    return NanoGPT(os.path.join(OUT, "bin", "nanogpt"), os.path.join(OUT, "nanogpt.pte"))


@pytest.fixture(scope="session")
def nanogpt_nocache(nanogpt) -> NanoGPT:
    """The same app on the program without a KV cache."""
    return NanoGPT(nanogpt.app, os.path.join(OUT, "nanogpt_nocache.pte"))


def ids_line(text: str, label: str) -> list[int]:
    """The ids of the `label: 1 2 3` line of the app's output."""
    for line in text.splitlines():
        if line.startswith(label + ":"):
            return [int(t) for t in line[len(label) + 1:].split()]
    raise AssertionError(f"no '{label}:' line in {text!r}")
