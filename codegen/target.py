"""Target manifest (manifests/targets/<name>.yaml) -> Target.

A target names its toolchain, compiler and flags, its backends, and the kernel
libraries it may use in precedence order (the first library to provide a kernel wins).
Each library must exist as manifests/kernels/<library>.yaml of the project, next to the
targets dir, or of the package, first found wins (codegen/roots.py).

`arch` says what the binaries run on (run=1 skips the self-checks of a foreign arch
without an emulator), `ar` the archiver of a cross toolchain, `launcher` a program
every compile command goes through (ccache, distcc, sccache; scons launcher= overrides).
What a cross or delegate build needs besides flags (read by site_scons/targets.py):
`libs`, `libpath`, `cpppath` (system libraries and where they are), `emulator` (the
command prefix that runs the target's binaries here, e.g. [qemu-aarch64, -L, ...]),
`requires` (files or programs that must exist) with `install` (the command or steps
that provide them, quoted in the one error a missing tool gives), and `sysroot_debs`
(Debian packages the build unpacks into a private sysroot, ${SYSROOT} in paths).

`threads` is the kernel threads the build's runner and apps use when no --threads is
given (0: every core; a model manifest's `threads:` wins, see parse_threads).

CLI: python -m codegen.target TARGET.yaml   (validates it and prints it)
"""

import os
import sys
from dataclasses import dataclass

from codegen import roots
from codegen.errors import ManifestError, run_cli, suggest
from codegen.yaml_io import load_yaml, once_per_file

_REQUIRED = ("toolchain", "cxx", "kernel_libraries")
# Compilers the build drives with GCC-style command lines (site_scons/targets.py).
TOOLCHAINS = ("gcc", "clang", "android-ndk")
_STRINGS = ("description", "toolchain", "arch", "cxx", "ar", "launcher", "profile", "install")
_LISTS = ("cxxflags", "linkflags", "kernel_libraries", "backends", "libs", "libpath",
          "cpppath", "emulator", "requires", "sysroot_debs")


@dataclass(frozen=True)
class Target:
    name: str                            # the file's stem: "host"
    path: str                            # "manifests/targets/host.yaml"
    toolchain: str
    cxx: str
    kernel_libraries: tuple[str, ...]    # precedence order
    description: str = ""                # shown by scons -h
    arch: str = ""                       # what its binaries run on; "" = this machine's
    ar: str = ""                         # archiver (and ranlib, as `ar s`); "" = the host's
    launcher: str = ""                   # compiler launcher: ccache, distcc, sccache, ...
    cxxflags: tuple[str, ...] = ()
    linkflags: tuple[str, ...] = ()
    backends: tuple[str, ...] = ()
    profile: str = ""                    # default build profile (manifests/profiles/), "" none
    libs: tuple[str, ...] = ()           # system libraries to link: [XNNPACK, pthreadpool]
    libpath: tuple[str, ...] = ()
    cpppath: tuple[str, ...] = ()
    emulator: tuple[str, ...] = ()       # runs a target binary here: [qemu-aarch64, -L, ...]
    requires: tuple[str, ...] = ()       # files (absolute) or programs the build needs
    install: str = ""                    # how to get what `requires` names
    sysroot_debs: tuple[str, ...] = ()   # unpacked into the build's private ${SYSROOT}
    threads: int | None = None           # default kernel threads (0: all cores); None: unset

    def library_path(self, library: str) -> str:
        """manifests/kernels/<library>.yaml: the project's, the one beside this target's
        directory, or the package's, first found; a user's library (a model's
        `kernel_libraries:`) is named by its path, which ends in .yaml."""
        if is_library_path(library):
            return library
        candidates = [os.path.join(d, f"{library}.yaml") for d in library_dirs(self.path)]
        found = [c for c in candidates if os.path.isfile(c)]
        return roots.scons_path((found or candidates)[:1][0])


MAX_THREADS = 64  # runtime/kernel/thread_pool.h: ThreadPool::kMaxThreads


def parse_threads(path: str, value) -> int:
    """A manifest's `threads:`: the kernel threads its binaries use when no --threads is
    given, 0 for every core."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_THREADS:
        raise ManifestError(f"{path}: threads must be a count from 0 (every core) to "
                            f"{MAX_THREADS}, e.g. threads: 2; not {value!r}")
    return value


def is_library_path(library: str) -> bool:
    """Whether `library` is a manifest's path rather than a name in manifests/kernels/."""
    return library.endswith((".yaml", ".yml"))


def library_kind(library: str, builtin: set) -> str:
    """The built-in library whose version of its kernels a model's library is, from its
    file name: kernels/llm/llm_optimized.yaml -> "optimized" when `builtin` (the names in
    manifests/kernels/) has it; "" for a library of no kind (custom_linear.yaml)."""
    stem = os.path.splitext(os.path.basename(library))[0]
    kind = stem.rpartition("_")[2] if "_" in stem else ""
    return kind if kind in builtin else ""


def libraries_for_build(model_libraries: tuple, build_libraries: tuple, builtin: set) -> tuple:
    """The model libraries a build with `build_libraries` (its target's, its profile's or
    libraries=, in precedence order) uses: one named <name>_<kind>.yaml, <kind> a built-in
    library, only when the build has <kind> too. A model lists llm_optimized.yaml ahead of
    llm_portable.yaml; profile=size (quantized, portable, prim) then runs the portable
    kernel, as it does for the ATen ops."""
    return tuple(lib for lib in model_libraries
                 if library_kind(lib, builtin) in ("", *build_libraries))


def kernel_library_order(target: "Target", chosen: tuple = (),
                         model_libraries: tuple = ()) -> tuple[tuple, tuple]:
    """The kernel libraries a build resolves against, in precedence order, and the part of
    them chosen over the target's (() when the target's own list stands). The models' own
    libraries come first (a <name>_<kind>.yaml one only when the build has <kind>:
    libraries_for_build); then `chosen` (libraries=, else the profile's: size keeps to
    the portable kernels), else the target's. The build and tailor.export(target=) both
    call this, so they delegate and resolve alike."""
    chosen = tuple(chosen)
    if model_libraries:
        build_libraries = chosen or target.kernel_libraries
        chosen = (libraries_for_build(tuple(model_libraries), build_libraries,
                                      known_libraries(target.path)) + build_libraries)
    return chosen or target.kernel_libraries, chosen


def kernels_dir(target_path: str) -> str:
    return os.path.join(os.path.dirname(os.path.dirname(target_path)) or ".", "kernels")


def library_dirs(target_path: str) -> list[str]:
    """Where a target's kernel libraries are looked up, in order: the project's
    manifests/kernels/, the one beside the target's directory, the package's."""
    found = roots.manifest_dirs("kernels")
    beside = os.path.abspath(kernels_dir(target_path))
    return list(dict.fromkeys(found[:-1] + [beside] + found[-1:]))


def known_libraries(target_path: str) -> frozenset[str]:
    """The names of every kernel library a target may list (library_dirs)."""
    return frozenset().union(*(builtin_libraries(d) for d in library_dirs(target_path)))


def builtin_libraries(directory: str) -> frozenset[str]:
    """The names of the kernel libraries in `directory` (manifests/kernels/: one <name>.yaml
    each)."""
    found = os.listdir(directory) if os.path.isdir(directory) else []
    return frozenset(f[:-5] for f in found if f.endswith(".yaml"))


def parse_target(text: str, path: str, libraries: frozenset[str]) -> Target:
    """Target manifest text -> Target; `libraries` are the kernel libraries that exist."""
    data = load_yaml(text, path)
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: a target is a YAML mapping (toolchain:, cxx:, "
                            "kernel_libraries:, ...)")
    known = _STRINGS + _LISTS + ("threads",)
    for key, value in data.items():
        if key not in known:
            raise ManifestError(f"{path}: unknown key '{key}'{suggest(str(key), known)}; "
                                f"the keys are {', '.join(known)}")
        if key in _STRINGS and not isinstance(value, str):
            raise ManifestError(f"{path}: {key} must be a string, e.g. {key}: g++")
        if key in _LISTS and not (isinstance(value, list)
                                  and all(isinstance(v, str) for v in value)):
            raise ManifestError(f"{path}: {key} must be a list of strings, e.g. "
                                f"{key}: [a, b] (or [] for none)")
    for key in ("cxxflags", "linkflags"):
        for i, flag in enumerate(data.get(key, [])):
            if flag in ("-Wl", "-Wa", "-Wp"):
                rest = data[key][i + 1] if i + 1 < len(data[key]) else "..."
                raise ManifestError(f"{path}: {key} lists '{flag}' alone: YAML split "
                                    f"'{flag},{rest}' at the comma; quote it: "
                                    f"['{flag},{rest}']")
    for key in _REQUIRED:
        if key not in data:
            raise ManifestError(f"{path}: {key} is missing; add e.g. "
                                + {"toolchain": "toolchain: gcc", "cxx": "cxx: g++",
                                   "kernel_libraries": "kernel_libraries: [portable]"}[key])
    if data["toolchain"] not in TOOLCHAINS:
        raise ManifestError(f"{path}: toolchain '{data['toolchain']}' is not supported"
                            f"{suggest(data['toolchain'], TOOLCHAINS)}; the toolchains are "
                            f"{', '.join(TOOLCHAINS)} (GCC-style command lines: the build "
                            "passes -o, -c, -Wl,... flags)")
    order = data["kernel_libraries"]
    if not order:
        raise ManifestError(f"{path}: kernel_libraries is empty; name at least one of "
                            f"{', '.join(sorted(libraries)) or 'manifests/kernels/*.yaml'}")
    for library in order:
        if library not in libraries:
            raise ManifestError(
                f"{path}: kernel library '{library}' is not in manifests/kernels/"
                f"{suggest(library, libraries)}; the libraries are "
                f"{', '.join(sorted(libraries)) or '(none)'}")
        if order.count(library) > 1:
            raise ManifestError(f"{path}: kernel library '{library}' is listed twice in "
                                "kernel_libraries; keep the first")
    if "threads" in data:
        parse_threads(path, data["threads"])
    fields = {k: (tuple(v) if k in _LISTS else v) for k, v in data.items()}
    name = os.path.splitext(os.path.basename(path))[0]
    return Target(name=name, path=path, **fields)


@once_per_file
def load_target(path: str) -> Target:
    with open(path) as f:
        text = f.read()
    return parse_target(text, roots.scons_path(path), known_libraries(path))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m codegen.target TARGET.yaml", file=sys.stderr)
        return 2
    target = load_target(argv[0])
    for field in Target.__dataclass_fields__:
        print(f"{field}: {getattr(target, field)}")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
