"""The libraries the op cases run against (CPU levels, the aarch64 build, XNNPACK), their
fallbacks and targets, and the sanitizer and stack settings of every run."""

import functools
import glob
import os
import shutil
import subprocess
import sys

from codegen import build_layout
from codegen.kernel_manifest import load_library
from codegen.target import load_target
from tests.conftest import REPO

# The build's modules (site_scons/): the harness asks them what scons will do.
sys.path.insert(0, os.path.join(REPO, "site_scons"))
import targets  # noqa: E402

BUILD = build_layout.tree("test-ops")
KERNELS_DIR = os.path.join(REPO, "manifests", "kernels")
XNNPACK = "xnnpack"                 # the delegate, run as a library of its own
XNNPACK_TARGET = "host-xnnpack"
# The only call a case delegated to XNNPACK may leave to the kernels: the permute of a
# permuted input (XNNPACK has no transpose), which is how the case feeds the op.
INPUT_PERMUTE = "aten::permute_copy.out"
# Dtypes of an op's tensors the partitioner does not refuse outright: max pooling's
# indices (Long), claimed when nothing reads them; a PReLU's x > 0 (Bool), folded into
# the PReLU node of its where.
UNCHECKED_DTYPES = {"aten::max_pool2d_with_indices.out": ("Long",),
                    "aten::gt.Scalar_out": ("Bool",), "aten::where.self_out": ("Bool",)}


# Libraries with micro-kernels per CPU instruction-set level (runtime/kernel/cpu_level.h):
# besides the default run (the best level), their cases run once more per lower level
# this machine has, as "<library>@<level>", with TL_CPU_LEVEL capping the runner.
LEVELED = ("optimized", "quantized")
HOST_TARGET = "host"
# "<library>@aarch64": a LEVELED library's runtime built for this target (its NEON
# kernels) and run under the target's emulator (qemu-aarch64).
CROSS = "aarch64"
CROSS_TARGET = "linux-aarch64"
# `scons sanitize=` of every runtime the harness builds; the environment its runs get.
SANITIZE = os.environ.get("TAILOR_SANITIZE", "none")
SANITIZER_EXIT = 99  # never the runner's own exit codes
# Every case runs on a thread with this much stack (runner --stack): no kernel may keep
# more than 16 KB on it (large buffers come from the kernel scratch), and embedded targets
# give threads little more. aarch64's glibc starts no thread below 128 KB (its
# PTHREAD_STACK_MIN, for 64 KB pages). Not under the sanitizers, whose redzones inflate
# every frame.
STACK = "64K" if SANITIZE == "none" else None
CROSS_STACK = "128K"
SANITIZER_ENV = {
    "ASAN_OPTIONS": f"exitcode={SANITIZER_EXIT}:detect_leaks=1",
    "UBSAN_OPTIONS": f"exitcode={SANITIZER_EXIT}:print_stacktrace=1:halt_on_error=1",
} if SANITIZE != "none" else {}


cpu_flags = targets.cpu_flags  # /proc/cpuinfo as the build reads it


def cpu_levels() -> list[str]:
    """The instruction-set levels this machine runs, lowest first (the build's reading of
    /proc/cpuinfo: site_scons/targets.py)."""
    return list(targets.CPU_LEVELS[:targets.host_cpu_level() + 1])


def vector_levels_in(binary: str) -> list[str]:
    """The levels above baseline whose vector code (optimized/util/vec.h) `binary` holds."""
    symbols = subprocess.run(["nm", "-C", binary], capture_output=True, text=True,
                             check=True).stdout
    return [level for level in targets.CPU_LEVELS[1:] if f"vec_run_{level}<" in symbols]


def libraries() -> list[str]:
    """Every library the cases run against: manifests/kernels/*.yaml but prim (a LEVELED
    one also capped at each lower CPU level, and built for aarch64), then XNNPACK."""
    names = []
    for name in sorted(os.path.splitext(os.path.basename(p))[0]
                       for p in glob.glob(os.path.join(KERNELS_DIR, "*.yaml"))
                       if not p.endswith("prim.yaml")):
        names.append(name)
        if name in LEVELED:
            names += [f"{name}@{level}" for level in cpu_levels()[:-1]]
            names.append(f"{name}@{CROSS}")
    return names + [XNNPACK]


def split_library(library: str) -> tuple[str, str]:
    """"optimized@avx2" -> ("optimized", "avx2"); "portable" -> ("portable", "");
    "optimized@aarch64" -> ("optimized", "aarch64")."""
    base, _, level = library.partition("@")
    return base, level


@functools.cache
def fallbacks(library: str) -> tuple[str, ...]:
    """The libraries after `library` in the host target's kernel_libraries, which take
    the calls it has no kernel for (optimized -> portable, prim); prim for a library the
    target does not list."""
    order = load_target(os.path.join(REPO, "manifests", "targets",
                                     f"{HOST_TARGET}.yaml")).kernel_libraries
    rest = tuple(order[order.index(library) + 1:]) if library in order else ()
    return rest or ("prim",)


def load_libraries(library: str) -> list:
    """`library` and its fallbacks (portable: prim; optimized: portable, prim), as the
    resolver takes them (precedence order)."""
    return [load_library(os.path.join(KERNELS_DIR, f"{name}.yaml"))
            for name in (library, *fallbacks(library))]


@functools.cache
def _xnnpack_target():
    return load_target(os.path.join(REPO, "manifests", "targets", f"{XNNPACK_TARGET}.yaml"))


def _cross_target():
    return load_target(os.path.join(REPO, "manifests", "targets", f"{CROSS_TARGET}.yaml"))


def _missing(tools) -> list:
    """The tools (absolute paths or commands on PATH) this machine does not have."""
    return [t for t in tools if not (os.path.exists(t) if os.path.isabs(t) else shutil.which(t))]


def unavailable(library: str) -> str | None:
    """Why this machine cannot build `library`'s runtime (what its target requires is
    missing, with how to install it), or None."""
    if split_library(library)[1] == CROSS:
        if SANITIZE != "none":
            return "the sanitizers run on the host's builds only"
        target = _cross_target()
        missing = _missing([target.cxx, target.emulator[0], *target.requires])
        return f"{', '.join(missing)} not found; {target.install}" if missing else None
    if library != XNNPACK:
        return None
    target = _xnnpack_target()
    missing = _missing(target.requires)
    if missing:
        return f"XNNPACK is not installed ({', '.join(missing)} not found); {target.install}"
    return None
