"""One lib=shared build of the MLP for the C API and Python package tests."""

import os
from dataclasses import dataclass

import pytest

from codegen import build_layout
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-bindings")


@dataclass(frozen=True)
class SharedBuild:
    stdout: str    # what scons printed
    library: str   # absolute path of libtailor.so
    program: str   # absolute path of mlp.pte (its example I/O in mlp_io/ beside it)


@pytest.fixture(scope="session")
def mlp_shared() -> SharedBuild:
    proc = run_scons("model=mlp", "lib=shared", "build_dir=" + BUILD)
    made = build_layout.outputs(os.path.join(REPO, build_layout.output_dir(
        ["mlp"], build_dir=BUILD, lib="shared")))
    return SharedBuild(proc.stdout, made.library, made.programs["mlp"])
