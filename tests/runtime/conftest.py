"""Builds the runtime + runner under ASan/UBSan once per session (cached by content).

The build uses g++ directly (no SCons): every .cpp under runtime/ and runner/, plus the
test kernel table in fixtures/ and its fake selected_dtypes.h. Objects are compiled one
at a time (the machine is shared); the binary is cached in build/tests_runtime/<hash>/.
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
# allocator_may_return_null: a corrupt arena size asks for petabytes; like a real libc,
# return NULL (the runtime reports MemoryAllocationFailed) instead of aborting.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "exitcode=99:detect_leaks=1:abort_on_error=0:allocator_may_return_null=1",
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
def runner_bin(tmp_path_factory) -> str:
    """Path of the sanitized runner binary, building it when the sources changed.

    The build happens in a session tmp dir and the binary is cached in
    build/tests_runtime/<hash>/; the session always runs its own copy, so a concurrent
    `rm -rf build` elsewhere cannot pull it away mid-run.
    """
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("g++ is not installed: the runtime tests compile the runtime with it")
    from exporter.serialize import flatc as find_flatc
    flatc = find_flatc()
    work = tmp_path_factory.mktemp("runtime_build")
    binary = str(work / "runner")
    cached = os.path.join(BUILD_ROOT, _inputs_digest(flatc), "runner")
    if os.path.exists(cached):
        shutil.copy2(cached, binary)
        return binary

    gen_dir = str(work / "gen")
    obj_dir = str(work / "obj")
    os.makedirs(obj_dir)
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
    proc = subprocess.run([cxx, *CXXFLAGS, *objects, "-o", binary], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        pytest.fail(f"linking the runner failed:\n{proc.stderr}")
    try:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        shutil.copy2(binary, cached + ".tmp")
        os.replace(cached + ".tmp", cached)
    except OSError:
        pass  # the cache is an optimisation only
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
        # errors="replace": messages may quote bytes of a corrupt file.
        proc = subprocess.run([runner_bin, *map(str, args)], capture_output=True, text=True,
                              errors="replace", env=env, timeout=60)
        result = RunResult(proc)
        assert "ERROR: AddressSanitizer" not in proc.stderr, result
        assert "LeakSanitizer" not in proc.stderr, result
        assert "runtime error:" not in proc.stderr, result
        assert proc.returncode in (0, 1, 2), result
        return result

    return _run
