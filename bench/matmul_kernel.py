"""The matmul kernel alone: checks kernels/portable/util/matmul.h and times it.

    .venv/bin/python bench/matmul_kernel.py [--profile size] [--reps 20] [--no-time]

Compiles bench/matmul_kernel.cpp (no runtime, no SCons) with the host target's compiler
and flags (manifests/targets/host.yaml), or with the size profile's compile flags appended
(--profile size: -Os, where matmul() is the row-by-row loop), into build/bench-matmul/,
then runs `check` (both implementations, matmul_blocked and matmul_rowwise, on every dtype
the kernels support, edge shapes and every epilogue, against a plain triple loop; exit 1
on a mismatch) and `time` (GFLOP/s of both on the GPT's Float products, best of --reps
interleaved runs, so a busy machine slows both alike).
"""

import argparse
import os
import subprocess
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from codegen.build_layout import tree  # noqa: E402

OUT = os.path.join(REPO, tree("bench-matmul"))


def flags(profile: str | None) -> tuple[str, list[str]]:
    with open(os.path.join(REPO, "manifests", "targets", "host.yaml")) as f:
        target = yaml.safe_load(f)
    cxxflags = list(target["cxxflags"])
    if profile:
        with open(os.path.join(REPO, "manifests", "profiles", profile + ".yaml")) as f:
            cxxflags += [flag for flag in yaml.safe_load(f)["cxxflags"]
                         if flag not in ("-flto", "-g")]
        if "-fno-pie" in cxxflags:
            cxxflags.append("-no-pie")  # the link must agree
    return target["cxx"], cxxflags


def build(profile: str | None) -> str:
    cxx, cxxflags = flags(profile)
    os.makedirs(os.path.join(OUT, "gen"), exist_ok=True)
    # Every dtype selected, as in a select=all build.
    with open(os.path.join(OUT, "gen", "selected_dtypes.h"), "w") as f:
        f.write("#define TL_SELECT_ALL_DTYPES 1\n")
    binary = os.path.join(OUT, "matmul_kernel" + ("_" + profile if profile else ""))
    cmd = [cxx, *cxxflags, "-I", REPO, "-I", os.path.join(OUT, "gen"),
           os.path.join(REPO, "bench", "matmul_kernel.cpp"), "-o", binary]
    print(" ".join(os.path.relpath(c, REPO) if c.startswith(REPO) else c for c in cmd),
          flush=True)
    subprocess.run(cmd, check=True)
    return binary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", help="a manifests/profiles/ name, e.g. size")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--no-time", action="store_true", help="check only")
    args = parser.parse_args(argv)
    binary = build(args.profile)
    if subprocess.run([binary, "check"]).returncode != 0:
        return 1
    if not args.no_time:
        subprocess.run([binary, "time", str(args.reps)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
