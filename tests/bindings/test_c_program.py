"""The C API from C: `scons model=mlp lib=shared` builds libtailor.so, gcc compiles
tests/bindings/mlp_check.c as C11 against c_api/tailor.h, and it runs the MLP program
on the example input and compares with torch eager's output (and checks bad calls fail
with codes). Then the same program built by CMake (find_package(tailor)) and by
pkg-config against the install prefixes of lib=shared and lib=static."""

import os
import subprocess

import pytest

from codegen import build_layout
from tests.bindings.c_check import build_cmake_app, run_check
from tests.bindings.conftest import BUILD
from tests.conftest import REPO, run_scons

HERE = os.path.dirname(os.path.abspath(__file__))


def test_build_prints_the_library_path(mlp_shared):
    assert "shared library: %s" % os.path.relpath(mlp_shared.library, REPO) \
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
                    "-I", os.path.join(REPO, "c_api"), os.path.join(HERE, "mlp_check.c"),
                    "-o", str(exe), "-L", lib_dir, "-ltailor", "-Wl,-rpath," + lib_dir, "-lm"],
                   check=True)
    return run_check(str(exe), program, tmp_path, env)


def test_c_program_runs_the_mlp(mlp_shared, tmp_path):
    proc = _compile_and_run(mlp_shared.library, mlp_shared.program, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "c api check passed" in proc.stdout
    assert proc.stdout.count("max abs error") == 2  # from the path and from a buffer
    assert proc.stderr == "", "the library prints nothing: errors go to tl_last_error()"


@pytest.mark.slow  # a sanitized library of its own: minutes (.ci/run runs the tier)
def test_c_program_under_asan(tmp_path):
    """The same calls, good and bad, against a sanitize=address library: no memory error,
    no leak."""
    run_scons("model=mlp", "lib=shared", "sanitize=address", "build_dir=" + BUILD)
    made = build_layout.outputs(os.path.join(REPO, build_layout.output_dir(
        ["mlp"], build_dir=BUILD, lib="shared", sanitize="address")))
    flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    env = dict(os.environ, ASAN_OPTIONS="exitcode=99:detect_leaks=1",
               UBSAN_OPTIONS="halt_on_error=1:exitcode=99")
    proc = _compile_and_run(made.library, made.programs["mlp"], tmp_path, flags, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "c api check passed" in proc.stdout


def test_cmake_app_against_the_shared_prefix(mlp_shared, tmp_path):
    prefix = os.path.dirname(os.path.dirname(mlp_shared.library))
    exe = build_cmake_app(prefix, tmp_path)
    needed = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True,
                            check=True).stdout
    assert "Shared library: [libtailor.so]" in needed  # by its soname, not a build path
    proc = run_check(exe, mlp_shared.program, tmp_path)
    assert proc.returncode == 0 and "c api check passed" in proc.stdout, proc.stdout + proc.stderr


def test_cmake_and_pkg_config_apps_against_the_static_prefix(tmp_path):
    proc = run_scons("model=mlp", "lib=static", "build_dir=" + BUILD)
    prefix = os.path.join(REPO, BUILD, "host", "mlp")
    assert "static library: %s/host/mlp/lib/libtailor.a" % BUILD in proc.stdout, proc.stdout
    for path in ("include/tailor.h", "lib/cmake/tailor/tailorConfig.cmake",
                 "lib/pkgconfig/tailor.pc"):
        assert os.path.isfile(os.path.join(prefix, path)), path
    exe = build_cmake_app(prefix, tmp_path)
    dynamic = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True).stdout
    assert "libtailor" not in dynamic  # linked in
    program = os.path.join(prefix, "mlp.pte")
    proc = run_check(exe, program, tmp_path)
    assert proc.returncode == 0 and "c api check passed" in proc.stdout, proc.stdout + proc.stderr
    # The C API's log sink, not the platform's: a failing call prints nothing.
    assert proc.stderr == ""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "tailor"], capture_output=True,
                           text=True, check=True,
                           env=dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib",
                                                                            "pkgconfig"))
                           ).stdout.split()
    exe = str(tmp_path / "mlp_check_pc")
    subprocess.run(["gcc", "-std=c11", os.path.join(HERE, "mlp_check.c"), "-o", exe, *flags,
                    "-lm"], check=True)
    proc = run_check(exe, program, tmp_path)
    assert proc.returncode == 0 and "c api check passed" in proc.stdout, proc.stdout + proc.stderr
