"""The fixtures tests/llm shares: the training text and the tokenize driver
(tests/llm/tokenizer_kit.py), and the build the llm app's tests share: `scons model=nanogpt,nanogpt_nocache run=1` (the
demo GPT with and without its KV cache, one runtime and one llm app) into its own
build_dir (incremental: SCons rebuilds only what changed)."""

import os

import pytest

from codegen import build_layout
from examples.nanogpt.trained import MODEL
from tests.conftest import REPO, run_scons
from tests.llm import tokenizer_kit
from tests.llm.app import LlmApp

BUILD_DIR = build_layout.tree("test-nanogpt")
OUT = os.path.join(REPO, build_layout.output_dir(["nanogpt", "nanogpt_nocache"],
                                                 build_dir=BUILD_DIR))


@pytest.fixture(scope="session")
def nanogpt() -> LlmApp:
    # The build tracks the factory's .py files, not the weights file it reads: export
    # again when the weights are newer than the program.
    for name in ("nanogpt", "nanogpt_nocache"):
        pte = build_layout.program(OUT, name)
        if os.path.exists(pte) and os.path.getmtime(pte) < os.path.getmtime(MODEL):
            os.remove(pte)
    proc = run_scons("model=nanogpt,nanogpt_nocache", "run=1", "build_dir=" + BUILD_DIR)
    assert "check passed" in proc.stdout or "is up to date" in proc.stdout, proc.stdout
    made = build_layout.outputs(OUT)
    return LlmApp(made.apps["nanogpt"], made.programs["nanogpt"])


@pytest.fixture(scope="session")
def nanogpt_nocache(nanogpt) -> LlmApp:
    """The same app on the program without a KV cache (and without constant methods)."""
    return LlmApp(nanogpt.app, build_layout.outputs(OUT).programs["nanogpt_nocache"])


@pytest.fixture(scope="session")
def corpus() -> list[str]:
    return tokenizer_kit.training_text()


@pytest.fixture(scope="session")
def tokenize() -> str:
    return tokenizer_kit.build_driver()
