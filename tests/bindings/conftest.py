"""One lib=shared build of the MLP for the C API and Python package tests."""

import os
from dataclasses import dataclass

import pytest

from tests.conftest import REPO, run_scons

BUILD = "build/test-bindings"


@dataclass(frozen=True)
class SharedBuild:
    stdout: str    # what scons printed
    library: str   # absolute path of libtailor.so
    program: str   # absolute path of mlp.pte (its example I/O in mlp_io/ beside it)


@pytest.fixture(scope="session")
def mlp_shared() -> SharedBuild:
    proc = run_scons("model=mlp", "lib=shared", "build_dir=" + BUILD)
    out = os.path.join(REPO, BUILD, "host-shared", "mlp")
    return SharedBuild(proc.stdout, os.path.join(out, "lib", "libtailor.so"),
                       os.path.join(out, "mlp.pte"))
