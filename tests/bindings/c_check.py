"""mlp_check.c, the C program that runs a one-input, one-output Float program through the
C API: building it with CMake against an install prefix (lib=shared or lib=static), and
running it on a program's example I/O (<model>_io/ beside the .pte)."""

import os
import subprocess

import numpy as np

CMAKE_APP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cmake_app")


def build_cmake_app(prefix: str, workdir) -> str:
    """Configures and builds cmake_app/ with `prefix` on CMAKE_PREFIX_PATH; returns the
    executable."""
    build = os.path.join(str(workdir), "cmake-build")
    for command in (["cmake", "-S", CMAKE_APP, "-B", build, "-DCMAKE_PREFIX_PATH=" + prefix,
                     "-DCMAKE_C_FLAGS=-Wall -Wextra -Werror -pedantic"],
                    ["cmake", "--build", build]):
        proc = subprocess.run(command, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return os.path.join(build, "mlp_check")


def run_check(exe: str, program: str, workdir, env=None, tolerance: str = "1e-5"):
    """Runs `exe` on `program`'s example input against torch eager's output."""
    io = os.path.splitext(program)[0] + "_io"
    x = np.load(os.path.join(io, "input_0.npy"))
    expected = np.load(os.path.join(io, "expected_0.npy"))
    assert x.dtype == np.float32 and expected.dtype == np.float32
    x.tofile(os.path.join(str(workdir), "input.f32"))
    expected.tofile(os.path.join(str(workdir), "expected.f32"))
    return subprocess.run([exe, program, os.path.join(str(workdir), "input.f32"),
                           ",".join(map(str, x.shape)),
                           os.path.join(str(workdir), "expected.f32"), tolerance],
                          capture_output=True, text=True, env=env)
