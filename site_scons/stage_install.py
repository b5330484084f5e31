"""lib=shared and lib=static: the build directory of the variant becomes an install prefix
an application's own build finds the runtime in.

    <out>/include/tailor.h                    the C API
    <out>/lib/libtailor.so or libtailor.a     the runtime, its selected kernels, the C API
    <out>/lib/cmake/tailor/tailorConfig.cmake find_package(tailor) -> tailor::tailor
    <out>/lib/pkgconfig/tailor.pc             pkg-config --cflags --libs tailor

Both files find the prefix from their own place, so the directory can be moved or copied.
"""

import os
import re

import jinja2
from SCons.Script import Action, Copy

from program.atomic import write_text_atomic

HEADER = "c_api/tailor.h"
# What a C program linking the static library adds for the C++ inside it. The NDK's C++
# runtime is the app's choice (ANDROID_STL): CMake links it through the imported target's
# link language (CXX), so the app enables CXX.
_CXX_RUNTIME = {"gcc": ["stdc++", "m", "pthread"], "clang": ["stdc++", "m", "pthread"],
                "android-ndk": []}


def _api_version(repo: str) -> str:
    with open(os.path.join(repo, HEADER)) as f:
        return re.search(r"#define TL_C_API_VERSION (\d+)", f.read()).group(1)


def prefix_values(target, lib: str, repo: str) -> dict:
    """What the two files say for a lib=`lib` build for `target` (codegen.target.Target,
    variables substituted)."""
    return {"kind": "SHARED" if lib == "shared" else "STATIC",
            "library": "libtailor.so" if lib == "shared" else "libtailor.a",
            "libs": list(target.libs), "libpath": list(target.libpath),
            "version": _api_version(repo), "cxx_runtime": _CXX_RUNTIME[target.toolchain]}


def render_prefix_files(values: dict, repo: str) -> tuple[str, str]:
    """(tailorConfig.cmake, tailor.pc) from templates/."""
    templates = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(repo, "templates")),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, autoescape=False)
    return tuple(templates.get_template(name).render(**values)
                 for name in ("tailorConfig.cmake.j2", "tailor.pc.j2"))


def _render(target, source, env):
    """SCons action: writes the CMake config and the pkg-config file."""
    for node, text in zip(target, render_prefix_files(env["TL_PREFIX_VALUES"],
                                                      env.Dir("#").abspath)):
        write_text_atomic(str(node), text)
    return 0


def wire_prefix(ctx, library) -> list:
    """include/, the CMake config and the pkg-config file beside `library` (the variant's
    lib/libtailor.so or lib/libtailor.a)."""
    library = library[0]  # the builder's node list
    values = prefix_values(ctx.target, ctx.plan.lib, ctx.repo)
    assert values["library"] == library.name, library
    header = ctx.tenv.Command("%s/include/tailor.h" % ctx.out, HEADER, Copy("$TARGET", "$SOURCE"))
    configs = ctx.tenv.Command(
        ["%s/lib/cmake/tailor/tailorConfig.cmake" % ctx.out, "%s/lib/pkgconfig/tailor.pc" % ctx.out],
        [ctx.tenv.Value(repr(sorted(values.items())))]
        + ["templates/tailorConfig.cmake.j2", "templates/tailor.pc.j2"],
        Action(_render, ctx.label("writing the CMake and pkg-config files of %s" % library.name)),
        TL_PREFIX_VALUES=values)
    return header + configs
