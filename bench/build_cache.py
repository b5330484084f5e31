"""Clean builds with and without a warm cache: wall time of `scons model=mlp run=1` from
an empty build directory, side by side in one run.

    .venv/bin/python bench/build_cache.py [--repeat 3] [--jobs 1]

Rows (each a fresh build directory under build/bench-cache/, the same -j):
- cold: an empty cache (export, codegen, every compile and link, the self-check);
- warm cache: `rm -rf` the build directory, then the same command with cache= warm
  (every output is retrieved; the self-check runs, it is never cached);
- ccache: an empty cache= but a warm launcher=ccache (export and codegen run, compiles
  are ccache hits);
- up to date: the same command again in the warm build directory.
The goal (issue 17) is a warm-cache clean build of the MLP in at most 3 s with run=1.
Figures are the fastest of --repeat runs (other work on a shared machine only adds).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from codegen.build_layout import BUILD_DIR, check_report, output_dir, tree  # noqa: E402
SCONS = os.path.join(os.path.dirname(sys.executable), "scons")
ROOT = os.path.join(REPO, tree("bench-cache"))


def scons(build_dir: str, jobs: int, *options: str, env=None) -> float:
    """Seconds one `scons model=mlp run=1` takes; fails loudly when the build fails."""
    start = time.perf_counter()
    proc = subprocess.run([SCONS, "-j%d" % jobs, "model=mlp", "run=1",
                           "build_dir=" + build_dir, *options], cwd=REPO, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit("scons failed:\n" + proc.stdout[-3000:] + proc.stderr[-3000:])
    return seconds


def clean(build_dir: str, jobs: int, *options: str, env=None) -> float:
    """A clean build: its self-check must have run and passed."""
    shutil.rmtree(build_dir, ignore_errors=True)
    seconds = scons(build_dir, jobs, *options, env=env)
    with open(check_report(output_dir(["mlp"], build_dir=build_dir), "mlp")) as f:
        assert "check passed" in f.read()
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1, help="scons -j (default 1: plain scons)")
    args = parser.parse_args()
    shutil.rmtree(ROOT, ignore_errors=True)
    build = os.path.join(ROOT, BUILD_DIR)  # the tree a fresh checkout builds into
    rows = {"cold (empty cache)": [], "warm cache= (rm -rf build dir first)": [],
            "warm launcher=ccache, empty cache=": [], "up to date (nothing to do)": []}
    with tempfile.TemporaryDirectory() as tmp:
        ccache_env = dict(os.environ, CCACHE_DIR=os.path.join(tmp, "ccache"))
        have_ccache = shutil.which("ccache") is not None
        if have_ccache:  # warm ccache once
            clean(build, args.jobs, "launcher=ccache", env=ccache_env)
        for i in range(args.repeat):
            cache = "cache=" + os.path.join(tmp, "cache%d" % i)
            rows["cold (empty cache)"].append(clean(build, args.jobs, cache))
            rows["warm cache= (rm -rf build dir first)"].append(clean(build, args.jobs, cache))
            rows["up to date (nothing to do)"].append(scons(build, args.jobs, cache))
            if have_ccache:
                rows["warm launcher=ccache, empty cache="].append(
                    clean(build, args.jobs, "launcher=ccache",
                          "cache=" + os.path.join(tmp, "ccache-row%d" % i), env=ccache_env))
    cold = min(rows["cold (empty cache)"])
    print("scons -j%d model=mlp run=1 from a clean build directory, fastest of %d"
          % (args.jobs, args.repeat))
    print("| build | wall s | time / cold's |")
    print("| --- | ---: | ---: |")
    for name, times in rows.items():
        if times:
            print("| %s | %.2f | %.2fx |" % (name, min(times), min(times) / cold))
    shutil.rmtree(ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
