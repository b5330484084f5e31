"""Another model set in a warm build directory: wall time of `scons model=B` after
`scons model=A,B` built into the same directory, beside the cold build, side by side.

    .venv/bin/python bench/second_model_set.py [--models resnet18,nanogpt] [--jobs 2]
        [--checkout DIR ...]

Kernel objects belong to the target directory, one per kernel source and selection
(site_scons/kernel_units.py), so the second build compiles only the kernels the first
did not select alike. Each --checkout (default: this one) builds in a fresh directory
under its own build/bench-model-set/ with cache= (none), so an older checkout gives the
row to compare with. Rows: the cold build of every model, then each model alone.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from codegen.build_layout import tree  # noqa: E402
SCONS = os.path.join(os.path.dirname(sys.executable), "scons")


def scons(checkout: str, jobs: int, models: str) -> tuple[float, int]:
    """(seconds, compiler runs) of one build; fails loudly when the build fails."""
    start = time.perf_counter()
    proc = subprocess.run([SCONS, "-j%d" % jobs, "model=" + models, "cache=",
                           "build_dir=" + tree("bench-model-set")], cwd=checkout,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit("scons failed in %s:\n%s%s" % (checkout, proc.stdout[-3000:],
                                                 proc.stderr[-3000:]))
    return seconds, len(re.findall(r"\bcompiling\b", proc.stdout))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet18,nanogpt")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--checkout", action="append", default=[],
                        help="a checkout to build in (default: this one); repeat to compare")
    args = parser.parse_args()
    checkouts = args.checkout or [REPO]
    models = [m for m in args.models.split(",") if m]
    print("scons -j%d from a fresh build directory (cache= none), then each model alone "
          "into it" % args.jobs)
    print("| checkout | build | wall s | compiles |")
    print("| --- | --- | ---: | ---: |")
    for checkout in checkouts:
        shutil.rmtree(os.path.join(checkout, tree("bench-model-set")), ignore_errors=True)
        rows = [("model=" + ",".join(models), scons(checkout, args.jobs, ",".join(models)))]
        rows += [("then model=" + m, scons(checkout, args.jobs, m)) for m in models]
        for name, (seconds, compiles) in rows:
            print("| %s | %s | %.1f | %d |" % (os.path.basename(os.path.abspath(checkout)), name,
                                               seconds, compiles))
        shutil.rmtree(os.path.join(checkout, tree("bench-model-set")), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
