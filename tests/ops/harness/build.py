"""One runtime per library for the programs it runs, built through the real flow
(scons programs=@<list>), and where its runner lies."""

import os
import re
import subprocess
from dataclasses import dataclass

from codegen import build_layout
from tests.conftest import REPO, SCONS
from tests.ops.harness.libraries import (BUILD, CROSS, CROSS_TARGET, HOST_TARGET, SANITIZE,
                                         XNNPACK, XNNPACK_TARGET, _cross_target, fallbacks,
                                         libraries, split_library)
from tests.ops.harness.selection import Selection


@dataclass(frozen=True)
class LibraryBuild:
    library: str
    runner: str                      # absolute path of bin/runner
    selection: Selection
    cpu_level: str = ""              # TL_CPU_LEVEL for the runs ("": the best level)
    emulator: tuple[str, ...] = ()   # the command the runner runs under (a cross build)


def runner_path(ptes: list[str], library: str, build_dir: str = BUILD, ops: str = "") -> str:
    """Where scons puts the runner: site_scons/stages.py names the build directory (on
    sys.path through harness/libraries.py)."""
    import stages
    # XNNPACK's runtime: host-xnnpack with the target's own kernel libraries.
    library, level = split_library(library)
    target, libraries = ((XNNPACK_TARGET, ()) if library == XNNPACK
                         else (CROSS_TARGET if level == CROSS else HOST_TARGET,
                               (library, *fallbacks(library))))
    plan = stages.BuildPlan(target_name=target, models=(), programs=tuple(ptes),
                            libraries=libraries, ops=ops, select="used", run=False,
                            sanitize=SANITIZE, verbose=False, build_dir=build_dir)
    return build_layout.runner(os.path.join(REPO, build_dir, plan.target_dir, plan.variant))


def scons(*args: str) -> None:
    """Runs scons -j2; a failure shows the end of its output (not the long command line)."""
    proc = subprocess.run([SCONS, "-j2", *args], cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"scons failed (exit {proc.returncode}):\n"
                             f"{proc.stdout[-4000:]}{proc.stderr[-4000:]}")


def build_library(library: str, selection: Selection) -> LibraryBuild:
    """One runtime with every program of `selection` (one scons run); a "<library>@<level>"
    runs the library's runtime with TL_CPU_LEVEL=<level>, "<library>@aarch64" its own
    build for aarch64 under the emulator."""
    base, level = split_library(library)
    ptes = [e.pte for e in selection.programs.values()]
    if level == CROSS:
        runner = build_programs(library, ptes) if ptes else ""
        return LibraryBuild(library, runner, selection, emulator=_cross_target().emulator)
    runner = build_programs(base, ptes) if ptes else ""
    return LibraryBuild(library, runner, selection, level)


def build_programs(library: str, ptes: list[str], build_dir: str = BUILD) -> str:
    """One runtime of `library` (with its fallbacks) for every program in `ptes`, built
    through the real flow; returns its runner."""
    base, level = split_library(library)
    how = ([f"target={XNNPACK_TARGET}"] if base == XNNPACK
           else ["libraries=" + ",".join((base, *fallbacks(base)))])
    if level == CROSS:
        how.append(f"target={CROSS_TARGET}")
    # Too many for a command line; a library given by its manifest's path names it too.
    listing = os.path.join(build_dir, f"programs-{re.sub(r'[^A-Za-z0-9@_-]+', '_', library)}.txt")
    os.makedirs(os.path.join(REPO, build_dir), exist_ok=True)
    with open(os.path.join(REPO, listing), "w") as f:
        f.write("".join(p + "\n" for p in ptes))
    scons("programs=@" + listing, *how, "build_dir=" + build_dir, "sanitize=" + SANITIZE)
    runner = runner_path(ptes, library, build_dir=build_dir)
    assert os.path.exists(runner), f"the build made no {runner}"
    return runner
