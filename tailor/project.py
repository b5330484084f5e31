"""Project mode: `tailor init` and `tailor build` in the user's own directory.

    tailor init                              manifests/{models,kernels,targets}/, .gitignore
    tailor build --model M [--target T] [--run] [--lib shared|static] [--profile size]
                 [-j N] [key=value ...] [other scons options]

`tailor build` is SCons underneath: it runs the package's SConstruct (codegen/roots.py:
the package root) with this directory as project=, so manifests are looked up here
first, factories import from here, and the build goes to ./build. Everything scons
takes passes through (generate=..., size=1, -n, ...).
"""

import argparse
import os
import subprocess
import sys

from codegen import build_layout, roots

# Each directory `tailor init` makes, with the one line of its README.
LAYOUT = {
    "manifests/models": "One YAML per model: description, factory (module:function, the "
                        "module path relative to the project), dynamic_dims, tolerance, ... "
                        "`tailor build --model <name>` builds manifests/models/<name>.yaml.",
    "manifests/kernels": "Kernel libraries in the functions.yaml format; a library here "
                         "overrides the package's of the same name, and a target may list it "
                         "by name. `source:` paths are relative to the project.",
    "manifests/targets": "Target manifests (toolchain, cxx, flags, kernel_libraries, "
                         "backends); one named like the package's (host) overrides it.",
}
GITIGNORE = build_layout.BUILD_DIR + "/\n"


def init(directory: str) -> int:
    """Writes the starting layout into `directory`; keeps any file that is already there."""
    wrote = []
    for folder, line in LAYOUT.items():
        os.makedirs(os.path.join(directory, folder), exist_ok=True)
        wrote += _write_new(os.path.join(directory, folder, "README.md"), line + "\n")
    wrote += _write_new(os.path.join(directory, ".gitignore"), GITIGNORE)
    for path in wrote:
        print("tailor init: wrote %s" % os.path.relpath(path, directory))
    if not wrote:
        print("tailor init: the layout is already here; nothing written")
    return 0


def _write_new(path: str, text: str) -> list[str]:
    if os.path.exists(path):
        return []
    with open(path, "w") as f:
        f.write(text)
    return [path]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tailor build",
        description="Build a runtime for your models from this directory (the project): "
                    "manifests are looked up in ./manifests/ first, then in the package's; "
                    "the build goes to ./build. SCons underneath: further key=value options "
                    "and scons flags pass through (scons -h in the package lists them all).",
        epilog="example: tailor build --model tiny --run --lib static -j 2")
    parser.add_argument("--model", required=True,
                        help="model manifest names (manifests/models/<name>.yaml), comma "
                             "separated; several go into one runtime")
    parser.add_argument("--target", help="target manifest names, comma separated "
                                         "(default: host)")
    parser.add_argument("--run", action="store_true",
                        help="run each model's self-check against torch eager")
    parser.add_argument("--lib", choices=("shared", "static"),
                        help="also build lib/libtailor.so or lib/libtailor.a with the C API, "
                             "and make the build directory an install prefix (include/, "
                             "lib/cmake/tailor/, lib/pkgconfig/)")
    parser.add_argument("--profile", help="build profile (size: the smallest runtime)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="parallel compile jobs (default: the number of CPUs)")
    return parser


def scons_command(args: argparse.Namespace, passthrough: list[str], project: str) -> list[str]:
    """The scons command line `tailor build` runs."""
    given = {"model": args.model, "project": project, "target": args.target,
             "run": "1" if args.run else None, "lib": args.lib, "profile": args.profile}
    options = ["%s=%s" % (key, value) for key, value in given.items() if value]
    return ([sys.executable, "-m", "SCons", "-C", roots.PACKAGE, "-f", "SConstruct",
             "-j%d" % args.jobs] + options + passthrough)


def build(argv: list[str], project: str) -> int:
    args, passthrough = build_parser().parse_known_args(argv)
    return subprocess.run(scons_command(args, passthrough, os.path.abspath(project))).returncode
