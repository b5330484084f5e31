"""The Android freestanding compile check: the executor, the kernel table, the platform
layer and every kernel (portable, optimized, prim, quantized) compile with
`clang++ --target=aarch64-linux-android24 -ffreestanding`, with no C or C++ library on the
include path at all (-nostdinc; only clang's own <stddef.h>, <stdint.h>, <stdarg.h>...).

Every runtime source is checked unless HOSTED names it with the reason, so a new file is
freestanding by default. The kernel table is the generated register_kernels.cpp of a
select=all plan over the kernel libraries, with its functions.h and selected_dtypes.h.
"""

import glob
import os
import subprocess

import pytest

from codegen.kernel_manifest import load_library
from codegen.oplist import OpList
from codegen.render import render_files
from codegen.resolve import resolve_kernels
from tests.backends.conftest import require
from tests.conftest import REPO

INSTALL = "apt-get install -y clang lld"
LIBRARIES = ("manifests/kernels/optimized.yaml", "manifests/kernels/portable.yaml",
             "manifests/kernels/prim.yaml", "manifests/kernels/quantized.yaml")

# Runtime sources that need a hosted C++ library, and why.
HOSTED = {
    # The program loader reads the flatbuffer through the flatbuffers headers
    # (<string>, <vector>...); execution then only reads the Steps it built.
    "runtime/executor/program.cpp": "flatbuffers",
    "runtime/executor/method_load.cpp": "flatbuffers",
    "runtime/executor/method_prepack.cpp": "flatbuffers",
    "runtime/executor/method_values.cpp": "flatbuffers",
    "runtime/executor/method_steps.cpp": "flatbuffers",
    "runtime/executor/method_kernels.cpp": "flatbuffers",
    # Data loaders over POSIX files and mmap; a port brings its own DataLoader.
    "runtime/loader/file_data_loader.cpp": "POSIX files",
    "runtime/loader/mmap_data_loader.cpp": "POSIX mmap",
    # The convenience API owns its loader and memory with std::unique_ptr and malloc.
    "runtime/module/module.cpp": "heap",
    "runtime/module/method_memory.cpp": "heap",
    # The kernels' thread pool runs on POSIX threads; kernels see only
    # runtime/kernel/parallel.h, and a port without threads leaves the pool out.
    "runtime/kernel/thread_pool.cpp": "POSIX threads",
    # The default platform layer for POSIX hosts (stderr, clock_gettime, abort); a port
    # replaces these weak definitions.
    "runtime/platform/default/posix.cpp": "POSIX",
    "runtime/platform/default/terminate.cpp": "abort",
}


def _freestanding_flags(target: str = "aarch64-linux-android24") -> list[str]:
    resource = subprocess.run(["clang++", "-print-resource-dir"], capture_output=True,
                              text=True, check=True).stdout.strip()
    return [f"--target={target}", "-std=c++17", "-ffreestanding", "-nostdinc",
            "-isystem", os.path.join(resource, "include"), "-fno-exceptions", "-fno-rtti",
            "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-I" + REPO,
            "-fsyntax-only"]


def _check(sources: list[str], include_dirs: tuple[str, ...] = (),
           target: str = "aarch64-linux-android24") -> None:
    proc = subprocess.run(["clang++", *_freestanding_flags(target),
                           *("-I" + d for d in include_dirs), *sources],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-6000:]


def _runtime_sources() -> list[str]:
    return sorted(glob.glob("runtime/**/*.cpp", root_dir=REPO, recursive=True))


def test_hosted_list_names_existing_files():
    missing = sorted(set(HOSTED) - set(_runtime_sources()))
    assert missing == [], f"HOSTED names files that no longer exist: {missing}"


def test_executor_kernel_table_and_platform_compile_freestanding():
    require("clang++", INSTALL)
    sources = [s for s in _runtime_sources() if s not in HOSTED]
    # The core of the claim: these must be among the checked files.
    for required in ("runtime/executor/method.cpp", "runtime/kernel/registry.cpp",
                     "runtime/platform/log.cpp", "runtime/platform/format.cpp"):
        assert required in sources
    _check(sources)


@pytest.fixture(scope="module")
def select_all_gen(tmp_path_factory) -> str:
    """A gen/ directory rendered from a select=all plan of the kernel libraries."""
    libraries = [load_library(os.path.join(REPO, path)) for path in LIBRARIES]
    plan = resolve_kernels(OpList(()), libraries, select_all=True)
    gen = tmp_path_factory.mktemp("gen")
    for name, text in render_files(plan).items():
        (gen / name).write_text(text)
    return str(gen)


def test_kernels_and_generated_table_compile_freestanding(select_all_gen):
    require("clang++", INSTALL)
    kernels = sorted(glob.glob("kernels/*/op_*.cpp", root_dir=REPO))
    assert len(kernels) > 50
    _check(kernels + [os.path.join(select_all_gen, "register_kernels.cpp")],
           (select_all_gen,))


def test_x86_kernels_compile_freestanding(select_all_gen):
    """The x86-64 micro-kernels (AVX2, AVX-512: kernels/optimized/util/gemm_x86.h,
    kernels/quantized/util/qlinear_avx2.h) are #if'd out on aarch64: compile the kernels
    for an x86-64 Android too."""
    require("clang++", INSTALL)
    kernels = sorted(glob.glob("kernels/optimized/op_*.cpp", root_dir=REPO)
                     + glob.glob("kernels/quantized/op_*.cpp", root_dir=REPO))
    assert kernels
    _check(kernels + ["runtime/kernel/cpu_level.cpp"], (select_all_gen,),
           "x86_64-linux-android24")


def test_check_rejects_a_hosted_header(tmp_path):
    """The check is only worth something if a hosted include really fails it."""
    require("clang++", INSTALL)
    source = tmp_path / "hosted.cpp"
    source.write_text("#include <string.h>\nint f(const char* s) { return (int)strlen(s); }\n")
    with pytest.raises(AssertionError, match="string.h"):
        _check([str(source)])
