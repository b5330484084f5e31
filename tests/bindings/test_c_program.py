"""The C API from C: `scons model=mlp lib=shared` builds libtailor.so, gcc compiles
tests/bindings/mlp_check.c as C11 against c_api/tailor.h, and it runs the MLP program
on the example input and compares with torch eager's output (and checks bad calls fail
with codes)."""

import os
import subprocess

import numpy as np

from tests.bindings.conftest import BUILD
from tests.conftest import REPO, run_scons

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


def _compile_and_run(library: str, program: str, tmp_path, flags=(), env=None):
    """Compiles mlp_check.c against `library` and runs it on `program`'s example I/O."""
    lib_dir = os.path.dirname(library)
    exe = tmp_path / "mlp_check"
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", *flags,
                    "-I", REPO, os.path.join(HERE, "mlp_check.c"), "-o", str(exe),
                    "-L", lib_dir, "-ltailor", "-Wl,-rpath," + lib_dir, "-lm"],
                   check=True)
    io = os.path.splitext(program)[0] + "_io"
    x = np.load(os.path.join(io, "input_0.npy"))
    expected = np.load(os.path.join(io, "expected_0.npy"))
    assert x.dtype == np.float32 and expected.dtype == np.float32
    x.tofile(tmp_path / "input.f32")
    expected.tofile(tmp_path / "expected.f32")
    return subprocess.run([str(exe), program, str(tmp_path / "input.f32"),
                           ",".join(map(str, x.shape)), str(tmp_path / "expected.f32"), "1e-5"],
                          capture_output=True, text=True, env=env)


def test_c_program_runs_the_mlp(mlp_shared, tmp_path):
    proc = _compile_and_run(mlp_shared.library, mlp_shared.program, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "c api check passed" in proc.stdout
    assert proc.stdout.count("max abs error") == 2  # from the path and from a buffer
    assert proc.stderr == "", "the library prints nothing: errors go to tl_last_error()"


def test_c_program_under_asan(tmp_path):
    """The same calls, good and bad, against a sanitize=address library: no memory error,
    no leak."""
    run_scons("model=mlp", "lib=shared", "sanitize=address", "build_dir=" + BUILD)
    out = os.path.join(REPO, BUILD, "host-shared-asan", "mlp")
    flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    env = dict(os.environ, ASAN_OPTIONS="exitcode=99:detect_leaks=1",
               UBSAN_OPTIONS="halt_on_error=1:exitcode=99")
    proc = _compile_and_run(os.path.join(out, "lib", "libtailor.so"),
                            os.path.join(out, "mlp.pte"), tmp_path, flags, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "c api check passed" in proc.stdout
