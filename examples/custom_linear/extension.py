"""Builds the runtime's custom_linear kernel into a torch extension, so eager runs it.

load() compiles torch_adapter.cpp (which includes op_custom_linear.cpp, the runtime's
kernel) with the few runtime sources it calls, through torch.utils.cpp_extension, into
build/extensions/custom_linear/, once; later calls reuse the build. Without a C++
compiler it returns None and ops.py runs the Python reference instead; so does
TAILOR_CUSTOM_LINEAR_EAGER=reference.
"""

import fcntl
import functools
import os
import shutil
import sys

from codegen import build_layout

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_DIR = os.path.join(REPO, build_layout.tree(os.path.join("extensions", "custom_linear")))
# What the kernel calls outside its own file: Tensor, resize_tensor() and the log.
RUNTIME_SOURCES = ("runtime/core/tensor.cpp", "runtime/core/error.cpp",
                   "runtime/kernel/kernel_utils.cpp", "runtime/platform/log.cpp",
                   "runtime/platform/format.cpp", "runtime/platform/default/posix.cpp")
# The kernel switches over no dtype, but kernel_includes.h includes the selection.
_SELECTED_DTYPES = "#pragma once\n#define TL_SELECT_ALL_DTYPES 1\n"


@functools.lru_cache(maxsize=None)
def load():
    """The compiled extension (custom_linear_out(input, weight, bias, out)), or None."""
    if os.environ.get("TAILOR_CUSTOM_LINEAR_EAGER") == "reference":
        return None
    if shutil.which(os.environ.get("CXX", "c++")) is None:
        print("custom_linear: no C++ compiler; eager runs the Python reference",
              file=sys.stderr)
        return None
    from torch.utils import cpp_extension

    os.makedirs(BUILD_DIR, exist_ok=True)
    header = os.path.join(BUILD_DIR, "selected_dtypes.h")
    if not os.path.exists(header):
        with open(header, "w") as f:
            f.write(_SELECTED_DTYPES)
    sources = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_adapter.cpp")]
    sources += [os.path.join(REPO, s) for s in RUNTIME_SOURCES]
    # torch marks a build in progress with a bare `lock` file, which a build killed midway
    # leaves behind: the next load() would wait on it forever. Our own flock is released by
    # the kernel when its holder dies, and every load() takes it first, so while we hold
    # it no live process is inside torch's build and a `lock` file is stale.
    with open(os.path.join(BUILD_DIR, "load.flock"), "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        stale = os.path.join(BUILD_DIR, "lock")
        if os.path.exists(stale):
            os.remove(stale)
        return cpp_extension.load("tailor_custom_linear", sources, build_directory=BUILD_DIR,
                                  extra_include_paths=[REPO, BUILD_DIR],
                                  extra_cflags=["-O2", "-std=c++17"], verbose=False)
