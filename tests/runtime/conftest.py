"""Builds the runtime + runner under ASan/UBSan once per session (cached by content).

The build uses g++ directly (no SCons): every .cpp under runtime/ and runner/, plus the
test kernel table in fixtures/ and its fake selected_dtypes.h. Objects are compiled one
at a time (the machine is shared) into build/tests_runtime/<hash>/.
"""

import hashlib
import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, "tests", "runtime", "fixtures")
BUILD_ROOT = os.path.join(REPO, "build", "tests_runtime")

sys.path.insert(0, REPO)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CXXFLAGS = [
    "-std=c++17", "-fno-exceptions", "-fno-rtti", "-Wall", "-Wextra", "-Werror", "-g", "-O1",
    "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer",
]

# Sanitizer failures exit with 99 so they never pass for the runner's own exit code 1.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "exitcode=99:detect_leaks=1:abort_on_error=0",
    "UBSAN_OPTIONS": "exitcode=99:print_stacktrace=1:halt_on_error=1",
}


def _sources() -> list[str]:
    found = []
    for top in ("runtime", "runner"):
        for root, _, files in os.walk(os.path.join(REPO, top)):
            found += [os.path.join(root, f) for f in files if f.endswith(".cpp")]
    found.append(os.path.join(FIXTURES, "test_kernels.cpp"))
    return sorted(found)


def _inputs_digest(flatc: str) -> str:
    h = hashlib.sha256(" ".join(CXXFLAGS + [flatc]).encode())
    for top in ("runtime", "runner", "tests/runtime/fixtures", "schema"):
        for root, _, files in sorted(os.walk(os.path.join(REPO, top))):
            for f in sorted(files):
                path = os.path.join(root, f)
                h.update(path.encode())
                h.update(open(path, "rb").read())
    return h.hexdigest()[:16]


@pytest.fixture(scope="session")
def runner_bin() -> str:
    """Path of the sanitized runner binary, building it when the sources changed."""
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("g++ is not installed: the runtime tests compile the runtime with it")
    from exporter.serialize import flatc as find_flatc
    flatc = find_flatc()
    out_dir = os.path.join(BUILD_ROOT, _inputs_digest(flatc))
    binary = os.path.join(out_dir, "runner")
    if os.path.exists(binary):
        return binary

    gen_dir = os.path.join(out_dir, "gen")
    obj_dir = os.path.join(out_dir, "obj")
    os.makedirs(obj_dir, exist_ok=True)
    subprocess.run([flatc, "--cpp", "-o", gen_dir, os.path.join(REPO, "schema", "program.fbs")],
                   check=True, capture_output=True)
    includes = ["-I" + REPO, "-I" + gen_dir, "-I" + os.path.join(REPO, ".venv", "include"),
                "-I" + FIXTURES]
    objects = []
    for src in _sources():
        obj = os.path.join(obj_dir, os.path.relpath(src, REPO).replace("/", "_") + ".o")
        proc = subprocess.run([cxx, *CXXFLAGS, *includes, "-c", src, "-o", obj],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.fail(f"compiling {os.path.relpath(src, REPO)} failed:\n{proc.stderr}")
        objects.append(obj)
    proc = subprocess.run([cxx, *CXXFLAGS, *objects, "-o", binary + ".tmp"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"linking the runner failed:\n{proc.stderr}")
    os.replace(binary + ".tmp", binary)
    return binary


class RunResult:
    def __init__(self, proc: subprocess.CompletedProcess):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def __repr__(self) -> str:
        return f"exit {self.returncode}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}"


@pytest.fixture
def run(runner_bin):
    """run(*args) -> RunResult; fails the test on any sanitizer report or crash."""

    def _run(*args: str) -> RunResult:
        env = dict(os.environ, **SANITIZER_ENV)
        proc = subprocess.run([runner_bin, *map(str, args)], capture_output=True, text=True,
                              env=env, timeout=60)
        result = RunResult(proc)
        assert "AddressSanitizer" not in proc.stderr, result
        assert "LeakSanitizer" not in proc.stderr, result
        assert "runtime error:" not in proc.stderr, result
        assert proc.returncode in (0, 1, 2), result
        return result

    return _run
