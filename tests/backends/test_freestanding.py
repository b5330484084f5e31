"""The Android freestanding compile check: runtime sources compiled with
`clang++ --target=aarch64-linux-android24 -ffreestanding -c` (no NDK here, so no bionic
and no C++ library: only clang's own <stddef.h>, <stdint.h>, ...).

The files that are free of hosted headers must stay so. The executor, kernel table and
portable kernels are not yet (issue 6, open): the core headers use <type_traits>, <new>
and <utility> (runtime/core/evalue.h, result.h), the executor snprintf/memcpy
(<stdio.h>, <string.h>, <inttypes.h>) and kernels <cmath>; that check is a strict xfail,
so it turns into a failure to update once they compile.
"""

import glob
import os
import subprocess

import pytest

from tests.backends.conftest import require
from tests.conftest import REPO

INSTALL = "apt-get install -y clang lld"
FLAGS = ["--target=aarch64-linux-android24", "-std=c++17", "-ffreestanding", "-fno-exceptions",
         "-fno-rtti", "-Wall", "-Werror", "-Wno-unused-parameter", "-I" + REPO, "-c", "-o",
         os.devnull]
FREESTANDING = ["runtime/core/error.cpp", "runtime/core/tensor.cpp",
                "runtime/kernel/kernel_utils.cpp"]
NOT_YET = (sorted(glob.glob("runtime/executor/*.cpp", root_dir=REPO))
           + ["runtime/kernel/registry.cpp", "runtime/platform/log.cpp"]
           + sorted(glob.glob("kernels/portable/op_*.cpp", root_dir=REPO)))


def _compile(source: str) -> subprocess.CompletedProcess:
    return subprocess.run(["clang++", *FLAGS, os.path.join(REPO, source)], capture_output=True,
                          text=True)


@pytest.mark.parametrize("source", FREESTANDING)
def test_compiles_freestanding_for_android(source):
    require("clang++", INSTALL)
    proc = _compile(source)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.xfail(strict=True, reason="the executor, kernel table and portable kernels "
                   "still include hosted headers (see the module docstring)")
def test_executor_and_kernels_compile_freestanding():
    require("clang++", INSTALL)
    failing = [s for s in NOT_YET if _compile(s).returncode != 0]
    assert failing == []
