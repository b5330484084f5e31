"""Builds the runtime + runner under ASan/UBSan once per session (cached by content).

The build uses g++ directly (no SCons): every .cpp under runtime/ and runner/, plus the
test kernel table in fixtures/ and its fake selected_dtypes.h; and hostile/, which runs
real kernels on hostile values. Objects are compiled one at a time (the machine is
shared); the binaries are cached in build/tests_runtime/<hash>/.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, "tests", "runtime", "fixtures")

sys.path.insert(0, REPO)
from codegen import build_layout  # noqa: E402

BUILD_ROOT = os.path.join(REPO, build_layout.tree("tests_runtime"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HOSTILE = os.path.join(REPO, "tests", "runtime", "hostile")

# float-cast-overflow: a double out of an integer's range is undefined too (GCC's
# `undefined` leaves it out). -g1: line tables, all a report's stack needs (-g compiled
# the runtime's largest file 1.6 times as long).
CXXFLAGS = [
    "-std=c++17", "-fno-exceptions", "-fno-rtti", "-Wall", "-Wextra", "-Werror", "-g1", "-O1",
    "-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
]

# Sanitizer failures exit with 99 so they never pass for the runner's own exit code 1.
# allocator_may_return_null: a corrupt arena size asks for petabytes; like a real libc,
# return NULL (the runtime reports MemoryAllocationFailed) instead of aborting.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "exitcode=99:detect_leaks=1:abort_on_error=0:allocator_may_return_null=1",
    "UBSAN_OPTIONS": "exitcode=99:print_stacktrace=1:halt_on_error=1",
}


def _sources(top: str) -> list[str]:
    found = []
    for root, _, files in os.walk(os.path.join(REPO, top)):
        found += [os.path.join(root, f) for f in files if f.endswith(".cpp")]
    return sorted(found)


def _common_sources() -> list[str]:
    """Linked into every binary: the runtime."""
    return _sources("runtime")


TEST_KERNELS = os.path.join(FIXTURES, "test_kernels.cpp")
# The real kernels hostile/hostile_values.cpp drives.
HOSTILE_KERNELS = [os.path.join(REPO, "kernels", *p.split("/")) for p in (
    "portable/op_view_copy.cpp", "portable/op_split_with_sizes_copy.cpp",
    "portable/op_arange.cpp", "portable/op_add.cpp", "portable/op_sub.cpp",
    "portable/op_mul.cpp", "prim/op_int_arith.cpp",
    # Kernels reading Bool elements (the "bool bytes" case).
    "portable/op_where.cpp", "portable/op_logical_not.cpp", "portable/op_logical_and.cpp",
    "portable/op_any.cpp", "portable/op_index.cpp", "portable/op__to_copy.cpp",
    "portable/op_eq.cpp", "portable/op_bitwise_not.cpp", "portable/op_bitwise_and.cpp",
    "portable/op_maximum.cpp", "portable/op_sum.cpp", "portable/op_amax.cpp",
    "portable/op_cumsum.cpp")]

# Each binary's own sources, and the directory its selected_dtypes.h comes from.
BINARIES = {
    # runner/trace/ goes only into trace=1 builds (TL_TRACE), which these are not.
    "runner": (lambda: [s for s in _sources("runner")
                        if os.sep + "trace" + os.sep not in os.path.relpath(s, REPO)]
               + [TEST_KERNELS, os.path.join(FIXTURES, "build_defaults.cpp")], FIXTURES),
    "runtime_tool": (lambda: [TEST_KERNELS, os.path.join(FIXTURES, "runtime_tool.cpp")],
                     FIXTURES),
    "hostile_values": (lambda: [os.path.join(HOSTILE, "hostile_values.cpp")] + HOSTILE_KERNELS,
                       HOSTILE),
}


def _inputs_digest(flatc: str) -> str:
    h = hashlib.sha256(" ".join(CXXFLAGS + [flatc]).encode())
    for top in ("runtime", "runner", "tests/runtime/fixtures", "tests/runtime/hostile",
                "schema", "kernels"):
        for root, _, files in sorted(os.walk(os.path.join(REPO, top))):
            for f in sorted(files):
                path = os.path.join(root, f)
                h.update(path.encode())
                h.update(open(path, "rb").read())
    return h.hexdigest()[:16]


@pytest.fixture(scope="session")
def sanitized_bins(tmp_path_factory) -> dict[str, str]:
    """{name: path} of the sanitized binaries, building them when the sources changed.

    The build happens in a session tmp dir and the binaries are cached in
    build/tests_runtime/<hash>/; the session always runs its own copies, so a concurrent
    `rm -rf build` elsewhere cannot pull them away mid-run.
    """
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("g++ is not installed: the runtime tests compile the runtime with it")
    from program.flatc import flatc as find_flatc
    flatc = find_flatc()
    work = tmp_path_factory.mktemp("runtime_build")
    cache = os.path.join(BUILD_ROOT, _inputs_digest(flatc))
    bins = {name: str(work / name) for name in BINARIES}
    if all(os.path.exists(os.path.join(cache, name)) for name in BINARIES):
        for name, path in bins.items():
            shutil.copy2(os.path.join(cache, name), path)
        return bins

    gen_dir = str(work / "gen")
    obj_dir = str(work / "obj")
    os.makedirs(obj_dir)
    subprocess.run([flatc, "--cpp", "-o", gen_dir, os.path.join(REPO, "schema", "program.fbs")],
                   check=True, capture_output=True)
    # flatbuffers' headers come with the Python environment (site_scons/targets.py).
    includes = ["-I" + REPO, "-I" + gen_dir,
                "-I" + os.path.join(sysconfig.get_paths()["data"], "include")]
    compiled = {}

    def compile_all(sources, selection_dir):
        objects = []
        for src in sources:
            obj = os.path.join(obj_dir, os.path.basename(selection_dir) + "_"
                               + os.path.relpath(src, REPO).replace("/", "_") + ".o")
            if obj not in compiled:
                proc = subprocess.run([cxx, *CXXFLAGS, *includes, "-I" + selection_dir, "-c",
                                       src, "-o", obj], capture_output=True, text=True)
                if proc.returncode != 0:
                    pytest.fail(f"compiling {os.path.relpath(src, REPO)} failed:\n{proc.stderr}")
                compiled[obj] = True
            objects.append(obj)
        return objects

    common = compile_all(_common_sources(), FIXTURES)
    for name, (sources, selection_dir) in BINARIES.items():
        proc = subprocess.run([cxx, *CXXFLAGS, *common,
                               *compile_all(sources(), selection_dir), "-o", bins[name]],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.fail(f"linking {name} failed:\n{proc.stderr}")
    try:
        # Keep only this build: older hashes are stale sources.
        for old in os.listdir(BUILD_ROOT) if os.path.isdir(BUILD_ROOT) else []:
            if old != os.path.basename(cache):
                shutil.rmtree(os.path.join(BUILD_ROOT, old), ignore_errors=True)
        os.makedirs(cache, exist_ok=True)
        for name, path in bins.items():
            shutil.copy2(path, os.path.join(cache, name + ".tmp"))
            os.replace(os.path.join(cache, name + ".tmp"), os.path.join(cache, name))
    except OSError:
        pass  # the cache is an optimisation only
    return bins


@pytest.fixture(scope="session")
def runner_bin(sanitized_bins) -> str:
    return sanitized_bins["runner"]


class RunResult:
    def __init__(self, proc: subprocess.CompletedProcess):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def __repr__(self) -> str:
        return f"exit {self.returncode}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}"


def run_sanitized(binary: str, *args) -> RunResult:
    """Runs `binary`; fails the test on any sanitizer report or crash."""
    env = dict(os.environ, **SANITIZER_ENV)
    # errors="replace": messages may quote bytes of a corrupt file.
    proc = subprocess.run([binary, *map(str, args)], capture_output=True, text=True,
                          errors="replace", env=env, timeout=60)
    result = RunResult(proc)
    assert "ERROR: AddressSanitizer" not in proc.stderr, result
    assert "LeakSanitizer" not in proc.stderr, result
    assert "runtime error:" not in proc.stderr, result
    assert proc.returncode in (0, 1, 2), result
    return result


@pytest.fixture
def run(runner_bin):
    """run(*args) -> RunResult of the runner; fails on any sanitizer report or crash."""

    def _run(*args: str) -> RunResult:
        return run_sanitized(runner_bin, *args)

    return _run


@pytest.fixture
def run_hostile(sanitized_bins):
    """run_hostile() -> RunResult of hostile/hostile_values.cpp."""
    return lambda: run_sanitized(sanitized_bins["hostile_values"])


@pytest.fixture
def run_tool(sanitized_bins):
    """run_tool(*args) -> RunResult of fixtures/runtime_tool.cpp."""

    def _run(*args: str) -> RunResult:
        return run_sanitized(sanitized_bins["runtime_tool"], *args)

    return _run
