"""The C API from C: `scons model=mlp lib=shared` builds libtailor.so, gcc compiles
tests/bindings/mlp_check.c as C11 against c_api/tailor.h, and it runs the MLP program
on the example input and compares with torch eager's output (and checks bad calls fail
with codes)."""

import os
import subprocess

import numpy as np

from tests.conftest import REPO

HERE = os.path.dirname(os.path.abspath(__file__))


def test_build_prints_the_library_path(mlp_shared):
    assert "shared library: build/test-bindings/host-shared/mlp/lib/libtailor.so" \
        in mlp_shared.stdout, mlp_shared.stdout
    assert os.path.exists(mlp_shared.library)


def test_library_exports_only_the_c_api(mlp_shared):
    symbols = subprocess.run(["nm", "-D", "--defined-only", mlp_shared.library],
                             capture_output=True, text=True, check=True).stdout.split()
    names = [s for s in symbols if s.startswith("tl_")]
    assert "tl_method_execute" in names and "tl_program_load_file" in names
    assert not [s for s in names if s.startswith("tl_pal_")], names
    assert not [s for s in symbols if "tailor" in s], "C++ symbols leak out"


def test_c_program_runs_the_mlp(mlp_shared, tmp_path):
    lib_dir = os.path.dirname(mlp_shared.library)
    exe = tmp_path / "mlp_check"
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic",
                    "-I", REPO, os.path.join(HERE, "mlp_check.c"), "-o", str(exe),
                    "-L", lib_dir, "-ltailor", "-Wl,-rpath," + lib_dir, "-lm"],
                   check=True)
    io = os.path.splitext(mlp_shared.program)[0] + "_io"
    x = np.load(os.path.join(io, "input_0.npy"))
    expected = np.load(os.path.join(io, "expected_0.npy"))
    assert x.dtype == np.float32 and expected.dtype == np.float32
    x.tofile(tmp_path / "input.f32")
    expected.tofile(tmp_path / "expected.f32")
    proc = subprocess.run([str(exe), mlp_shared.program, str(tmp_path / "input.f32"),
                           ",".join(map(str, x.shape)), str(tmp_path / "expected.f32"), "1e-5"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "c api check passed" in proc.stdout
    assert proc.stdout.count("max abs error") == 2  # from the path and from a buffer
    assert proc.stderr == "", "the library prints nothing: errors go to tl_last_error()"
