"""The quantized linear alone: checks kernels/quantized/util/qlinear.h with every kernel
set and times them, on one thread and on two.

    .venv/bin/python bench/qlinear.py [--reps 20] [--no-time] [--target linux-aarch64] [--write]

Compiles bench/qlinear.cpp (no runtime, no SCons) with a target's compiler and flags, as
bench/gemm.py does, and runs `check`: every kernel set this CPU runs (x86-64: AVX2 and
AVX-512 VNNI; aarch64: NEON) against the plain C++ one, and every set split over 2 and 3
threads against itself on one; exit 1 on a mismatch. On aarch64 (under the target's
emulator) it checks twice: as the target compiles (plain NEON) and with
-march=armv8.2-a+dotprod (sdot). Then, on the host, `time`: microseconds per call of each
set and of the best on 2 threads, on the demo GPT's Linear shapes at T=1 and T=64, best of
--reps runs. --write puts the table into BENCHMARKS.md under "## Quantized linear".
"""

import datetime
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench.gemm import bench_arguments, build, check_then_time, cpu_name  # noqa: E402

# Builds per target: (extra flags, build-directory suffix).
VARIANTS = {"linux-aarch64": [((), ""), (("-march=armv8.2-a+dotprod",), "-dotprod")]}


def main(argv: list[str] | None = None) -> int:
    args = bench_arguments(__doc__).parse_args(argv)
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
