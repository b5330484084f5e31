"""Where a build's outputs live: the one definition of the build tree's names, for the
build (site_scons/stages.py) and for everything outside SCons (tests, benchmarks,
fuzzing, the inspector), which call output_dir() instead of spelling paths.

    <build_dir>/<target dir>/<variant>/     one build: bin/runner, <model>.pte, gen/, ...
    <build_dir>/<target dir>/obj, lib/       what every variant of the configuration shares

The target dir names what changes the objects (target, profile, logging, tracer, shared
library, sanitizer); the variant names the model set (and libraries=, select=all). Each
build also writes <variant>/outputs.json (OUTPUTS): what it made, relative to that
directory.
"""

import hashlib
import json
import os
from dataclasses import dataclass, field

BUILD_DIR = "build"  # scons's build_dir= unless given, relative to the project
OUTPUTS = "outputs.json"
_SANITIZERS = {"address": "-asan", "thread": "-tsan", "fuzzer": "-fuzz"}


def target_dir(target: str = "host", *, profile: str = "", log: bool = True,
               trace: bool = False, lib: str = "none", sanitize: str = "") -> str:
    """"host", "host-size-nolog", "host-trace", "host-shared", "host-asan", ..."""
    return (target + ("-" + profile if profile else "") + ("" if log else "-nolog")
            + ("-trace" if trace else "") + ("-shared" if lib == "shared" else "")
            + _SANITIZERS.get(sanitize, ""))


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def variant(models=(), programs=(), *, ops: bool = False, libraries=(),
            select_all: bool = False) -> str:
    """"mlp", "mlp+gpt_tiny", "add@portable+prim", "all": `models` by name, `programs`
    (.pte paths) and `libraries` (names, or manifest paths, which go by their stem)."""
    parts = [*models, *(_stem(p) for p in programs)]
    if len(parts) > 4:  # keep directory names short: the first, a count and a digest
        digest = hashlib.sha1("\0".join(parts).encode()).hexdigest()[:8]
        parts = parts[:1] + ["%d-more-%s" % (len(parts) - 1, digest)]
    parts += ["ops"] if ops else []
    name = "+".join(parts) or "all"
    if libraries:
        name += "@" + "+".join(_stem(lib) if lib.endswith((".yaml", ".yml")) else lib
                               for lib in libraries)
    return name + ("-all" if select_all and parts else "")


def config_dir(*, build_dir: str = BUILD_DIR, target: str = "host", profile: str = "",
               log: bool = True, trace: bool = False, lib: str = "none",
               sanitize: str = "") -> str:
    """What every variant of one target configuration shares (obj/, lib/, core/)."""
    return os.path.join(build_dir, target_dir(target, profile=profile, log=log, trace=trace,
                                              lib=lib, sanitize=sanitize))


def output_dir(models=(), programs=(), *, ops: bool = False, libraries=(),
               select_all: bool = False, **config) -> str:
    """The directory of one build, as `scons` with the same options makes it (relative
    to the project when `build_dir` is); `config` as config_dir() takes it."""
    return os.path.join(config_dir(**config),
                        variant(models, programs, ops=ops, libraries=libraries,
                                select_all=select_all))


def tree(name: str) -> str:
    """build/<name>: a build tree of its own (the `build_dir=` of a test's or a
    benchmark's builds, or where a script keeps its files), so that its builds neither
    wait on nor clobber the default tree's."""
    return os.path.join(BUILD_DIR, name)


# Inside one build's directory (output_dir): the names the build gives its outputs
# (site_scons/stage_compile.py and size_build.py name them through these).
def runner(out: str) -> str:
    return os.path.join(out, "bin", "runner")


def app(out: str, name: str) -> str:
    return os.path.join(out, "bin", name)


def program(out: str, model: str) -> str:
    return os.path.join(out, model + ".pte")


def library(out: str, lib: str = "shared") -> str:
    """lib/libtailor.so (lib=shared) or lib/libtailor.a (lib=static)."""
    return os.path.join(out, "lib", "libtailor." + ("so" if lib == "shared" else "a"))


def check_report(out: str, model: str) -> str:
    """run=1: the report of `model`'s outputs against torch eager (written when it passed)."""
    return os.path.join(out, model + ".check.txt")


def llm_check_report(out: str, model: str) -> str:
    """run=1 of an LLM: the report of its app's generation and tokenizer."""
    return os.path.join(out, model + ".llm-check.txt")


def kernel_plan(out: str) -> str:
    return os.path.join(out, "kernel_plan.yaml")


def size_app(out: str) -> str:
    """size=1: the size app linked with this build's kernels."""
    return app(out, "size_app")


def size_core(config_dir: str) -> str:
    """size=1: the kernel-less size app, one per target configuration
    (<build_dir>/<target dir>)."""
    return app(os.path.join(config_dir, "core"), "size_core")


def kernel_unit_source(config_dir: str, name: str) -> str:
    """A kernel unit's generated source, shared by every variant of the target
    configuration (<build_dir>/<target dir>; site_scons/kernel_units.py)."""
    return os.path.join(config_dir, "gen", "kernels", name + ".cpp")


def kernel_unit_object(config_dir: str, name: str) -> str:
    """A kernel unit's object, beside the runtime's objects of the configuration."""
    return os.path.join(config_dir, "obj", "kernels", name + ".o")


def fuzzer(out: str) -> str:
    """sanitize=fuzzer: the libFuzzer target."""
    return app(out, "fuzz_program")


@dataclass(frozen=True)
class Outputs:
    """What one build made (its outputs.json), as paths joined to its directory."""
    directory: str
    runner: str
    kernel_plan: str
    programs: dict = field(default_factory=dict)  # model -> .pte
    apps: dict = field(default_factory=dict)      # model -> its app
    library: str = ""                             # lib=shared or lib=static only
    fuzzer: str = ""                              # sanitize=fuzzer only


def outputs(out: str) -> Outputs:
    """Reads <out>/outputs.json; a missing one is an error that says to build first."""
    path = os.path.join(out, OUTPUTS)
    try:
        with open(path) as f:
            record = json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError("%s: no such file; build first (scons with the options "
                                "that name this directory)" % path) from None

    def join(rel: str) -> str:
        return os.path.join(out, rel) if rel else ""
    return Outputs(out, join(record["runner"]), join(record["kernel_plan"]),
                   {k: join(v) for k, v in record["programs"].items()},
                   {k: join(v) for k, v in record["apps"].items()},
                   join(record.get("library", "")), join(record.get("fuzzer", "")))
