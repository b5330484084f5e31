"""What the benchmarks do the same way: build with SCons, time a program with the runner
(its --json summary, not its text) and measure a binary's stripped size.

    from bench.common import REPO, read_bandwidth, run_runner, scons, stripped_size
"""

import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCONS = os.path.join(os.path.dirname(sys.executable), "scons")


def scons(*args: str, build_dir: str | None = None, jobs: int = 2) -> None:
    """`scons -jJOBS [build_dir=BUILD_DIR] ARGS` in the repository; its output is shown
    only when it fails, and then the benchmark stops."""
    cmd = [SCONS, "-Q", "-j%d" % jobs, *(["build_dir=" + build_dir] if build_dir else []),
           *args]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("error: %s failed:\n%s%s" % (" ".join(cmd), proc.stdout[-3000:], proc.stderr))


def run_runner(runner: str, program: str, *args: str, repeat: int, warmup: int = 1,
               threads: int = 1, prefix: tuple = ()) -> dict:
    """The runner's --json summary (runner/summary.h: times_ms, min_ms, median_ms, outputs)
    of `repeat` timed runs of `program` after `warmup` untimed ones; ARGS go to the runner
    as given (--input FILE, --check, ...); PREFIX before it (`chrt -r 10`)."""
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, "summary.json")
        cmd = [*prefix, runner, program, *args, "--threads", str(threads), "--warmup",
               str(warmup), "--repeat", str(repeat), "--json", summary]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"error: {' '.join(cmd)} exited {proc.returncode}:\n"
                     f"{proc.stdout}{proc.stderr}")
        with open(summary) as f:
            return json.load(f)


def stripped_size(path: str) -> int:
    """Bytes of `path` after `strip`: what a device would store."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "stripped")
        subprocess.run(["strip", "-o", copy, path], check=True)
        return os.path.getsize(copy)


def read_bandwidth(threads: int = 1, megabytes: int = 512, passes: int = 10) -> float:
    """GB/s `threads` threads sum memory at (bench/read_bandwidth.cpp, best of `passes`
    sums of `megabytes`): the ceiling of a decode step that reads every weight once."""
    import yaml
    with open(os.path.join(REPO, "manifests", "targets", "host.yaml")) as f:
        target = yaml.safe_load(f)
    from codegen.build_layout import tree
    out = os.path.join(REPO, tree("bench-read_bandwidth"))
    os.makedirs(out, exist_ok=True)
    binary = os.path.join(out, "read_bandwidth")
    subprocess.run([target["cxx"], *target["cxxflags"], "-pthread",
                    os.path.join(REPO, "bench", "read_bandwidth.cpp"), "-o", binary],
                   check=True)
    return float(subprocess.run([binary, str(megabytes), str(threads), str(passes)],
                                check=True, capture_output=True, text=True).stdout)
