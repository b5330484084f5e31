"""The optimized GEMM alone: checks kernels/optimized/util/gemm.h at every instruction-set
level and times it against the core's FMA peak.

    .venv/bin/python bench/gemm.py [--reps 20] [--no-time] [--target linux-aarch64] [--write]

Compiles bench/gemm.cpp (no runtime, no SCons) with a target's compiler and flags
(manifests/targets/<target>.yaml, host by default: no -march, as the runtime is built)
into build/bench-gemm/<target>/, runs `check` (every level this CPU runs, against a
double-precision triple loop; exit 1 on a mismatch; a cross target runs the quick check
under its emulator) and then, on the host, `time`: the FMA peak of each level measured by
a loop of independent multiply-adds, and GFLOP/s of each level's GEMM and of the portable
matmul on a 256^3 product and the GPT's shapes, best of --reps runs. --write puts the
table into BENCHMARKS.md under "## Optimized GEMM".
"""

import argparse
import datetime
import os
import subprocess
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench import benchmarks_md  # noqa: E402
from codegen.build_layout import tree  # noqa: E402

# The runtime pieces the GEMM needs: the CPU level, the thread pool, and the log and
# platform layer a bad TL_CPU_LEVEL is reported through.
RUNTIME_SOURCES = ["runtime/kernel/cpu_level.cpp", "runtime/kernel/thread_pool.cpp",
                   "runtime/platform/log.cpp", "runtime/platform/format.cpp",
                   "runtime/platform/default/posix.cpp"]


def load_target(name: str) -> dict:
    with open(os.path.join(REPO, "manifests", "targets", name + ".yaml")) as f:
        return yaml.safe_load(f)


def build(target_name: str, program: str = "gemm", flags: tuple[str, ...] = (),
          variant: str = "") -> tuple[str, list[str]]:
    """Compiles bench/<program>.cpp for the target, with `flags` after the target's, into
    build/bench-<program>/<target><variant>/; returns the binary and its run prefix."""
    target = load_target(target_name)
    out = os.path.join(REPO, tree(f"bench-{program}"), target_name + variant)
    os.makedirs(os.path.join(out, "gen"), exist_ok=True)
    with open(os.path.join(out, "gen", "selected_dtypes.h"), "w") as f:
        f.write("#define TL_SELECT_ALL_DTYPES 1\n")  # for the portable matmul beside it
    binary = os.path.join(out, program)
    cmd = [target["cxx"], *target["cxxflags"], *flags, "-I", REPO, "-I", os.path.join(out, "gen"),
           os.path.join(REPO, "bench", program + ".cpp"),
           *(os.path.join(REPO, s) for s in RUNTIME_SOURCES), "-o", binary]
    print(" ".join(os.path.relpath(c, REPO) if c.startswith(REPO) else c for c in cmd),
          flush=True)
    subprocess.run(cmd, check=True)
    return binary, list(target.get("emulator") or [])


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return "unknown CPU"


def bench_arguments(doc: str) -> argparse.ArgumentParser:
    """The options of a stand-alone kernel bench (this one, bench/qlinear.py)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--no-time", action="store_true", help="check only")
    parser.add_argument("--target", default="host", help="a manifests/targets/ name")
    parser.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    return parser


def check_then_time(builds: list[tuple[str, list[str]]], check: list[str],
                    args: argparse.Namespace, heading: str, intro: str) -> int:
    """Runs `check` on every (binary, emulator) build (1 at the first failure); then, on
    the host and unless --no-time, the last build's `time` table, printed and with
    --write put into BENCHMARKS.md under `heading` after `intro`."""
    for binary, emulator in builds:
        if subprocess.run(emulator + [binary, *check]).returncode != 0:
            return 1
    if args.no_time or emulator:
        return 0
    table = subprocess.run([binary, "time", str(args.reps)], check=True, capture_output=True,
                           text=True).stdout
    print(table)
    if args.write:  # a section's `### ` parts are written by hand (bench/qlinear.py --decode)
        benchmarks_md.write_section(heading, intro + table, keep_subsections=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = bench_arguments(__doc__).parse_args(argv)
    binary, emulator = build(args.target)
    return check_then_time([(binary, emulator)], ["check"] + (["quick"] if emulator else []),
                           args, "Optimized GEMM", (
        "The single-precision GEMM of kernels/optimized/util/gemm.h alone, one thread, "
        f"on this machine ({cpu_name()}, {os.cpu_count()} cores shared with other "
        f"jobs; measured {datetime.date.today()}), in GFLOP/s, best of "
        f"{args.reps} runs; each level's micro-kernels called directly (the runtime "
        "picks the best at run time; 'generic' is the x86-64 baseline, SSE2 without "
        "FMA). The peak is the fastest of the levels' multiply-add loops (12 "
        "independent FMA chains); 'best / peak' compares one thread with it. The last "
        "column splits each product over a pool of 2 threads (products under 256k "
        "multiply-adds stay on one), best of 5 times as many runs: on this shared "
        "machine the second core is often busy. Command:\n\n"
        "    .venv/bin/python bench/gemm.py --write\n\n"))


if __name__ == "__main__":
    sys.exit(main())
