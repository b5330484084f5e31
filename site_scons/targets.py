"""Target manifests -> SCons construction environments (compiler, flags, progress lines).

A manifest may use ${SYSROOT} (the build's private sysroot for `sysroot_debs`,
build/sysroots/<target>), ${ANDROID_NDK} (from ANDROID_NDK_HOME or ANDROID_NDK) and any
other ${NAME} from the environment. A variable that is not set, or a compiler, emulator
or required file that is missing, stops the build with one message quoting the
target's `install:` steps.
"""

import dataclasses
import os
import platform
import re
import shutil
import subprocess

from codegen import profile as profiles
from codegen import roots
from codegen.errors import ManifestError, suggest
from codegen.target import load_target
from program import flatc

_VARIABLE = re.compile(r"\$\{(\w+)\}")
# Variables read from one of several environment variables, first set wins.
_ALIASES = {"ANDROID_NDK": ("ANDROID_NDK_HOME", "ANDROID_NDK")}


def target_path(name: str) -> str:
    """manifests/targets/<name>.yaml of the project, else of the package, as SCons names it."""
    return roots.scons_path(roots.find_manifest("targets", name))


def target_names(option: str) -> list[str]:
    """target=host,linux-aarch64 -> the targets, each a manifest in manifests/targets/
    (the project's or the package's)."""
    names = list(dict.fromkeys(n.strip() for n in option.split(",") if n.strip()))
    known = roots.manifest_names("targets")
    for name in names:
        if name not in known:
            raise ManifestError(f"target={name}: there is no manifests/targets/{name}.yaml"
                                f"{suggest(name, known)}; targets: {', '.join(known)}")
    if not names:
        raise ManifestError(f"target= is empty; name one of {', '.join(known)}")
    return names


def targets_help() -> str:
    """One line per target with its manifest's description, for scons -h."""
    lines = []
    for name in roots.manifest_names("targets"):
        lines.append("  %-24s %s" % (name, load_target(target_path(name)).description))
    return "\n".join(lines)


def sysroot_dir(repo: str, build_dir: str, target_name: str) -> str:
    return os.path.join(repo, build_dir, "sysroots", target_name)


def _missing(target, what: str) -> ManifestError:
    how = f"; {target.install}" if target.install else ""
    return ManifestError(f"target {target.name} ({target.path}): {what}{how}")


def _substitute(target, variables: dict):
    """The target with every ${NAME} in its strings replaced, or one ManifestError."""
    def one(text: str) -> str:
        def value(m):
            name = m.group(1)
            if name in variables:
                return variables[name]
            for env_name in _ALIASES.get(name, (name,)):
                if os.environ.get(env_name):
                    return os.environ[env_name]
            names = " or ".join(_ALIASES.get(name, (name,)))
            raise _missing(target, f"{names} is not set (the manifest uses ${{{name}}})")
        return _VARIABLE.sub(value, text)
    changes = {}
    for field in dataclasses.fields(target):
        v = getattr(target, field.name)
        if isinstance(v, str):
            changes[field.name] = one(v)
        elif isinstance(v, tuple) and all(isinstance(x, str) for x in v):
            changes[field.name] = tuple(one(x) for x in v)
    return dataclasses.replace(target, **changes)


def _exists(tool: str) -> bool:
    return os.path.exists(tool) if os.path.isabs(tool) else shutil.which(tool) is not None


def check_toolchain(target) -> None:
    """One ManifestError for the first missing compiler, archiver, required file or
    foreign architecture (for sysroot_debs). A missing emulator only skips the
    self-checks (stage_check.cannot_run_here): building needs none."""
    tools = [("compiler", target.cxx.split()[0])]
    if target.ar:
        tools.append(("archiver", target.ar))
    tools += [("requirement", r) for r in target.requires]
    for kind, tool in tools:
        if not _exists(tool):
            raise _missing(target, f"{kind} {tool} not found")
    if target.sysroot_debs:
        archs = {d.partition(":")[2] for d in target.sysroot_debs if ":" in d}
        proc = subprocess.run(["dpkg", "--print-foreign-architectures"], capture_output=True,
                              text=True) if shutil.which("dpkg") else None
        have = set(proc.stdout.split()) if proc and proc.returncode == 0 else set()
        if not archs <= have:
            raise _missing(target, "its sysroot packages %s need the foreign architecture %s "
                           "(dpkg --add-architecture %s && apt-get update; setup.sh does this)"
                           % (", ".join(target.sysroot_debs), ", ".join(sorted(archs - have)),
                              " ".join(sorted(archs - have))))


def _emit_link_map(target, source, env):
    """A program's link map (-Wl,-Map) is its output too: cached and cleaned with it."""
    return target + [env.File(str(target[0]) + ".map")], source


_configured = {}  # one environment per configuration, so several variants share objects


def _tmp_path(node) -> str:
    return str(node) + ".tmp"


def _written(target) -> list:
    """What the tool writes under a temporary name: the output, and a link's map (a
    program declares it as its output; a shared library's is written all the same)."""
    return [str(target[0]), str(target[0]) + ".map"]


def _drop_tmp(target, source, env):
    """Before a tool runs: a leftover from an interrupted run must not feed `ar`."""
    for path in _written(target):
        if os.path.exists(_tmp_path(path)):
            os.unlink(_tmp_path(path))
    return 0


def _commit_tmp(target, source, env):
    """After the tool succeeded: each whole output appears at once under its name."""
    output, link_map = _written(target)
    os.replace(_tmp_path(output), output)
    if os.path.exists(_tmp_path(link_map)):
        os.replace(_tmp_path(link_map), link_map)
    return 0


def _atomic_builder(name: str):
    """Wraps builder `name` so its first output is written as <output>.tmp and renamed
    when complete: an interrupted compile, link or archive leaves no truncated file
    that a later build would take for finished."""
    def build(env, *args, **kwargs):
        nodes = getattr(env, "_tl_" + name)(*args, **kwargs)
        env.AddPreAction(nodes[:1], env.Action(_drop_tmp, None))
        env.AddPostAction(nodes[:1], env.Action(_commit_tmp, None))
        return nodes
    return build


def _write_to_tmp(tenv) -> None:
    """Points the compile, link and archive commands at <target>.tmp (see _atomic_builder)."""
    for var, old in (("CXXCOM", "-o $TARGET "), ("LINKCOM", "-o $TARGET "),
                     ("SHLINKCOM", "-o $TARGET "),
                     ("ARCOM", "$ARFLAGS $TARGET "), ("RANLIBCOM", "$RANLIBFLAGS $TARGET")):
        command = tenv[var]
        assert old in command, "%s changed shape: %r" % (var, command)
        tenv[var] = command.replace(old, old.replace("$TARGET", "${TARGET}.tmp"), 1)
    for name in ("Object", "Program", "StaticLibrary", "SharedLibrary"):
        # The original builder stays reachable under another name for the wrapper.
        tenv["BUILDERS"]["_tl_" + name] = tenv["BUILDERS"][name]
        tenv.AddMethod(_atomic_builder(name), name)


def compiler_launcher(target, option: str) -> str:
    """The launcher compile commands go through: launcher= ("none" for none), else the
    target's `launcher:`; "" for none. One not found stops the build."""
    launcher = target.launcher if option == "" else ("" if option == "none" else option)
    if launcher and not _exists(launcher):
        asked = ("launcher=%s" % option if option
                 else "target %s (%s): launcher: %s" % (target.name, target.path, launcher))
        raise ManifestError("%s: %s is not found on PATH; install it (e.g. apt-get install -y "
                            "%s) or build without it (launcher=none)"
                            % (asked, launcher, os.path.basename(launcher)))
    return launcher


# The compile and link flags of each `sanitize=` value but none. Address: float-cast-overflow
# too (a double out of an integer's range is undefined behaviour, and GCC's `undefined`
# leaves it out). Thread: a data race is reported and the program then exits 66. Fuzzer:
# address's, plus libFuzzer's coverage (_configure_fuzzer).
_ADDRESS = ["-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all"]
SANITIZER_FLAGS = {"address": _ADDRESS, "thread": ["-fsanitize=thread"], "fuzzer": _ADDRESS}

FUZZER_CXX = "clang++"  # libFuzzer is clang's
CPU_LEVELS = ("baseline", "avx2", "avx512")  # runtime/kernel/cpu_level.h's CpuLevel, in order


def cpu_flags() -> set[str]:
    """The CPU's feature flags as /proc/cpuinfo lists them (x86: avx2, avx512_vnni, ...);
    OSError where it cannot be read."""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.partition(":")[2].split())
    return set()


def host_cpu_level() -> int:
    """This machine's index in CPU_LEVELS: on x86-64, avx2 where /proc/cpuinfo lists AVX2
    and FMA, avx512 where AVX-512F too (every level where it cannot be read); baseline
    elsewhere."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return 0
    try:
        flags = cpu_flags()
    except OSError:
        return len(CPU_LEVELS) - 1
    if not {"avx2", "fma"} <= flags:
        return 0
    return 2 if "avx512f" in flags else 1


def _runs_here(target) -> bool:
    """Whether the target's binaries are built for this machine (no emulator, no sysroot,
    no other arch)."""
    return not (target.emulator or target.sysroot_debs or target.arch)


def _configure_fuzzer(tenv, target) -> None:
    """sanitize=fuzzer: clang++ for a native target, every object instrumented for
    libFuzzer's coverage (at -O1, like every sanitized build). Programs link as with
    sanitize=address; bin/fuzz_program adds libFuzzer's main (FUZZER_LINKFLAGS)."""
    if not _runs_here(target):
        raise ManifestError("sanitize=fuzzer: target %s (%s) is not this machine's; libFuzzer "
                            "runs where it is built: use target=host or target=host-xnnpack"
                            % (target.name, target.path))
    if not _exists(FUZZER_CXX):
        raise ManifestError("sanitize=fuzzer needs %s (libFuzzer is clang's): apt-get install "
                            "-y clang" % FUZZER_CXX)
    tenv.Replace(CXX=FUZZER_CXX, LINK=FUZZER_CXX)
    tenv.Append(CXXFLAGS=["-fsanitize=fuzzer-no-link"])
    tenv["FUZZER_LINKFLAGS"] = ["$LINKFLAGS", "-fsanitize=fuzzer"]


def configure(env, repo: str, target_name: str, sanitize: str, verbose: bool,
              profile: str = "", log: bool = True, build_dir: str = "build",
              trace: bool = False, pic: bool = False, launcher: str = ""):
    """A clone of `env` set up to compile for `target_name` with build profile `profile`
    (manifests/profiles/, "" for the target's flags only); returns (env, target).

    The environment's TL_LINK_SOURCES are the profile's sources that every program links
    as objects; TL_KERNEL_LIBRARIES the profile's kernel libraries ([]: the target's);
    TL_EMULATOR is the command prefix that runs its programs here ([] for none);
    TL_LAUNCHER the compiler launcher ("" for none). Each program also writes its link map to <program>.map. A compiler launcher
    (`launcher` as the option spells it, else the target's) prefixes every compile
    command but stays out of the signatures: objects are the same with or without it.
    """
    key = (id(env), target_name, sanitize, verbose, profile, log, build_dir, trace, pic,
           launcher)
    if key in _configured:
        return _configured[key]
    target = load_target(target_path(target_name))
    target = _substitute(target, {"SYSROOT": sysroot_dir(repo, build_dir, target_name)})
    check_toolchain(target)
    chosen = profiles.load_profile(profile, "profile=%s" % profile)
    tenv = env.Clone()
    tenv.Replace(CXX=target.cxx, LINK=target.cxx)
    if target.ar:
        tenv.Replace(AR=target.ar, RANLIB=target.ar, RANLIBFLAGS="s")
    tenv.Append(CXXFLAGS=list(target.cxxflags), LINKFLAGS=list(target.linkflags))
    if chosen is not None:
        tenv.Append(CXXFLAGS=list(chosen.cxxflags), LINKFLAGS=list(chosen.linkflags))
    tenv["TL_LINK_SOURCES"] = [roots.scons_path(roots.find_source(s))
                               for s in (chosen.link_sources if chosen else ())]
    tenv["TL_KERNEL_LIBRARIES"] = list(chosen.kernel_libraries) if chosen else []
    tenv["TL_EMULATOR"] = list(target.emulator)
    tenv.Append(CPPPATH=list(target.cpppath), LIBPATH=list(target.libpath),
                LIBS=list(target.libs))
    if not log:
        tenv.Append(CPPDEFINES=[("TL_LOG_ENABLED", 0)])
    if trace:  # the event tracer's hooks (runtime/executor/step.h)
        tenv.Append(CPPDEFINES=[("TL_TRACE", 1)])
    if pic:  # every object may go into the shared library (lib=shared)
        tenv.Append(CXXFLAGS=["-fPIC"])
        tenv["STATIC_AND_SHARED_OBJECTS_ARE_THE_SAME"] = 1
    # The map too is written under a temporary name (see _atomic_builder).
    tenv.Append(LINKFLAGS=["-Wl,-Map,${TARGET}.map.tmp"], PROGEMITTER=[_emit_link_map])
    if sanitize in SANITIZER_FLAGS:
        # Sanitizer reports need functions, files and lines only: line tables (-g1, in g++
        # and clang) compile the kernels 11-13% faster than full debug information (-g).
        flags = SANITIZER_FLAGS[sanitize] + ["-fno-omit-frame-pointer", "-g1"]
        tenv.Append(CXXFLAGS=flags, LINKFLAGS=flags)
        # -O1 after the target's and profile's level (the last one counts; at the link
        # too, where the size profile's LTO compiles): what the sanitizers' and libFuzzer's
        # documentation suggest, and the instrumented kernels' inlining at -O2 takes
        # minutes (optimized/op_convolution.cpp under ASan: 274 s at -O2, 50 at -O1).
        tenv.Append(CXXFLAGS=["-O1"], LINKFLAGS=["-O1"])
        if _runs_here(target):
            # Run only here: no code for the CPU levels above this machine's
            # (runtime/kernel/cpu_level.h, kCpuLevelCeiling).
            tenv.Append(CPPDEFINES=[("TL_CPU_LEVEL_CEILING", host_cpu_level())])
    if sanitize == "fuzzer":
        _configure_fuzzer(tenv, target)
    # The project's root after the package's: its kernel libraries' sources (#included
    # by the kernel units by their path from it) and apps' headers.
    tenv.Append(CPPPATH=["#"] + [roots.project_root()] * roots.in_project_mode()
                + [flatc.include_dir()])
    # flatbuffers' internal asserts (an index past a vector's end, ...) go through
    # TL_DCHECK like the runtime's own invariants: still checked in every build without
    # NDEBUG, but a log=0 build carries no assert text (each Vector<T>::Get instantiation
    # had its own __PRETTY_FUNCTION__ string: 1.8 KB of the size profile's core).
    tenv.Append(CPPDEFINES=[("FLATBUFFERS_ASSERT", "TL_DCHECK"),
                            ("FLATBUFFERS_ASSERT_INCLUDE", '\\"runtime/platform/assert.h\\"')])
    _write_to_tmp(tenv)
    tenv["TL_LAUNCHER"] = compiler_launcher(target, launcher)
    for var in ("CXXCOM", "SHCXXCOM"):
        tenv[var] = "$( $TL_LAUNCHER $) " + tenv[var]
    if not verbose:
        label = "[%s]" % target_name
        tenv.Replace(CXXCOMSTR=label + " compiling $SOURCE",
                     SHCXXCOMSTR=label + " compiling $SOURCE",
                     LINKCOMSTR=label + " linking $TARGET",
                     SHLINKCOMSTR=label + " linking $TARGET",
                     ARCOMSTR=label + " archiving $TARGET",
                     RANLIBCOMSTR=label + " indexing $TARGET")
    _configured[key] = (tenv, target)
    return tenv, target
