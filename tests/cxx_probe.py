"""A tiny C++ program compiled against the project's own headers, for parity tests: it
asks the C++ side of a fact shared with Python (a constant, a rule) and prints the answer.

Kernel headers include runtime/kernel/kernel_includes.h, which reads a build's
gen/selected_dtypes.h: the probe gets one selecting every dtype, so it needs no build.
"""

import os
import shutil
import subprocess

import pytest

from tests.conftest import REPO

_ALL_DTYPES = """#pragma once
#define TL_SELECT_ALL_DTYPES 1
namespace tailor::gen {
inline constexpr DtypeSelection kSelectedDtypes[] = {{"", "", 0u}};
}  // namespace tailor::gen
"""


def run_probe(directory, source: str, stdin: str = "") -> str:
    """Compiles `source` (C++17, the repository on the include path) in `directory` and
    returns what it prints reading `stdin`."""
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("g++ is not installed: the parity probes are C++")
    directory = str(directory)
    with open(os.path.join(directory, "selected_dtypes.h"), "w") as f:
        f.write(_ALL_DTYPES)
    path, exe = os.path.join(directory, "probe.cpp"), os.path.join(directory, "probe")
    with open(path, "w") as f:
        f.write(source)
    built = subprocess.run([cxx, "-std=c++17", "-O1", "-fno-exceptions", "-fno-rtti",
                            "-I", REPO, "-I", directory, path, "-o", exe],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-4000:]
    return subprocess.run([exe], input=stdin, capture_output=True, text=True,
                          check=True).stdout
