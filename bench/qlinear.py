"""The quantized linear alone: checks kernels/quantized/util/qlinear.h with every kernel
set and times them, on one thread and on two.

    .venv/bin/python bench/qlinear.py [--reps 20] [--no-time] [--target linux-aarch64] [--write]
    .venv/bin/python bench/qlinear.py --decode [--against REV] [--reps 10]

Compiles bench/qlinear.cpp (no runtime, no SCons) with a target's compiler and flags, as
bench/gemm.py does, and runs `check`: every kernel set this CPU runs (x86-64: AVX2 and
AVX-512 VNNI; aarch64: NEON) against the plain C++ one, and every set split over 2 and 3
threads against itself on one; exit 1 on a mismatch. On aarch64 (under the target's
emulator) it checks twice: as the target compiles (plain NEON) and with
-march=armv8.2-a+dotprod (sdot). Then, on the host, `time`: microseconds per call of each
set and of the best on 2 threads, on the demo GPT's Linear shapes at T=1 and T=64, best of
--reps runs. --write puts the table into BENCHMARKS.md under "## Quantized linear".

--decode times one-row (decode) calls instead, on a Llama-3.2-1B-shaped decoder's linears:
GB/s of weights and scales read at 8da4w and 8da8w, from memory and from cache (qlinear.cpp
says how). --against REV links the kernels of git revision REV (its kernels/quantized,
unpacked under build/bench-qlinear/) into the same binary, so each rep times both, one
after the other: a before/after comparison that a shared machine's load affects alike.
"""

import datetime
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench.gemm import (bench_arguments, build, check_then_time, cpu_name,  # noqa: E402
                        load_target, tree)

# Builds per target: (extra flags, build-directory suffix).
VARIANTS = {"linux-aarch64": [((), ""), (("-march=armv8.2-a+dotprod",), "-dotprod")]}


def against_object(target_name: str, rev: str) -> str:
    """bench/qlinear_against.cpp compiled with revision `rev`'s kernels: the object file."""
    sha = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", rev], check=True,
                         capture_output=True, text=True).stdout.strip()
    root = os.path.join(REPO, tree("bench-qlinear"), "against-" + sha)
    os.makedirs(root, exist_ok=True)
    archive = subprocess.run(["git", "-C", REPO, "archive", sha, "kernels/quantized"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", root], input=archive, check=True)
    target = load_target(target_name)
    obj = os.path.join(root, "qlinear_against.o")
    subprocess.run([target["cxx"], *target["cxxflags"], "-I", root, "-I", REPO, "-c",
                    os.path.join(REPO, "bench", "qlinear_against.cpp"), "-o", obj], check=True)
    return obj


def decode(args) -> int:
    flags, label = (), "before"
    if args.against:
        flags, label = ("-DTL_QLINEAR_AGAINST", against_object(args.target, args.against)), \
            args.against
    binary, emulator = build(args.target, "qlinear", flags, "-against" if args.against else "")
    return subprocess.run(emulator + [binary, "decode", str(args.reps), label]).returncode


def main(argv: list[str] | None = None) -> int:
    parser = bench_arguments(__doc__)
    parser.add_argument("--decode", action="store_true",
                        help="time one-row calls on the 1B shapes (GB/s) instead")
    parser.add_argument("--against", metavar="REV",
                        help="with --decode: also time git revision REV's kernels")
    args = parser.parse_args(argv)
    if args.against and not args.decode:
        parser.error("--against REV compares decode calls: add --decode")
    if args.decode:
        return decode(args)
    builds = [build(args.target, "qlinear", flags, suffix)
              for flags, suffix in VARIANTS.get(args.target, [((), "")])]
    return check_then_time(builds, ["check"], args, "Quantized linear", (
        "The int8 GEMM of kernels/quantized/util/qlinear.h alone (the kernel behind "
        "tailor_quant::linear.out), on this machine "
        f"({cpu_name()}, {os.cpu_count()} cores shared with other jobs; measured "
        f"{datetime.date.today()}): microseconds per call on the demo GPT's Linear "
        "shapes (n outputs x k inputs), best of "
        f"{args.reps} runs, each kernel set called directly ('generic' is plain C++ at "
        "the x86-64 baseline; the runtime picks the best the CPU has). The 8da schemes' "
        "times include quantizing the input rows. The last column splits the weight "
        "blocks over a pool of 2 threads (calls under 128k multiply-adds stay on one), "
        "best of 5 times as many runs: on this shared machine the second core is often "
        "busy. Command:\n\n"
        "    .venv/bin/python bench/qlinear.py --write\n\n"))


if __name__ == "__main__":
    sys.exit(main())
