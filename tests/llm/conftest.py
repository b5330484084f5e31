"""The fixtures tests/llm shares: the training text and the tokenize driver
(tests/llm/tokenizer_kit.py), and the build the llm app's tests share: `scons model=nanogpt,nanogpt_nocache run=1` (the
demo GPT with and without its KV cache, one runtime and one llm app) into its own
build_dir (incremental: SCons rebuilds only what changed)."""

import os

import pytest

from examples.nanogpt.trained import MODEL
from tests.conftest import REPO, run_scons
from tests.llm import tokenizer_kit
from tests.llm.app import LlmApp

BUILD_DIR = "build/test-nanogpt"
OUT = os.path.join(REPO, BUILD_DIR, "host", "nanogpt+nanogpt_nocache")


@pytest.fixture(scope="session")
def nanogpt() -> LlmApp:
    # The build tracks the factory's .py files, not the weights file it reads: export
    # again when the weights are newer than the program.
    for name in ("nanogpt", "nanogpt_nocache"):
        pte = os.path.join(OUT, name + ".pte")
        if os.path.exists(pte) and os.path.getmtime(pte) < os.path.getmtime(MODEL):
            os.remove(pte)
    proc = run_scons("model=nanogpt,nanogpt_nocache", "run=1", "build_dir=" + BUILD_DIR)
    assert "check passed" in proc.stdout or "is up to date" in proc.stdout, proc.stdout
    return LlmApp(os.path.join(OUT, "bin", "llm"), os.path.join(OUT, "nanogpt.pte"))


@pytest.fixture(scope="session")
def nanogpt_nocache(nanogpt) -> LlmApp:
    """The same app on the program without a KV cache (and without constant methods)."""
    return LlmApp(nanogpt.app, os.path.join(OUT, "nanogpt_nocache.pte"))


@pytest.fixture(scope="session")
def corpus() -> list[str]:
    return tokenizer_kit.training_text()


@pytest.fixture(scope="session")
def tokenize() -> str:
    return tokenizer_kit.build_driver()
