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
import os

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


def output_dir(models=(), programs=(), *, build_dir: str = "build", target: str = "host",
               profile: str = "", log: bool = True, trace: bool = False, lib: str = "none",
               sanitize: str = "", ops: bool = False, libraries=(),
               select_all: bool = False) -> str:
    """The directory of one build, as `scons` with the same options makes it (relative
    to the project when `build_dir` is)."""
    return os.path.join(build_dir,
                        target_dir(target, profile=profile, log=log, trace=trace, lib=lib,
                                   sanitize=sanitize),
                        variant(models, programs, ops=ops, libraries=libraries,
                                select_all=select_all))
