"""The event tracer's overhead on the demo GPT: the runner's forward time with and
without tracing.

    .venv/bin/python bench/trace_overhead.py [--repeat 200] [--rounds 5]

Builds `scons model=nanogpt` and `scons model=nanogpt trace=1`, then times one forward
(T=64, the example input of manifests/models/nanogpt.yaml) with `runner --repeat N`:
the default runtime, the trace=1 runtime without --trace (hooks compiled in, no tracer
attached) and with --trace FILE (every instruction recorded). The three alternate for
--rounds rounds so drift hits them alike. The overhead is taken on the minimum over all
runs, which other processes on a shared machine disturb least; the median over rounds
of the runner's median is shown beside it. The trace's per-instruction times are also
summed against the method's time per run (the inspector's coverage).
"""

import argparse
import glob
import json
import os
import statistics
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench.common import run_runner, scons  # noqa: E402
from codegen.build_layout import output_dir  # noqa: E402

PLAIN = os.path.join(REPO, output_dir(["nanogpt"]))
PROGRAM = os.path.join(PLAIN, "nanogpt.pte")


def build(trace: bool) -> str:
    scons("model=nanogpt", *(["trace=1"] if trace else []))
    return os.path.join(REPO, output_dir(["nanogpt"], trace=trace), "bin",
                        "runner")


def min_and_median_ms(command: list[str], repeat: int) -> tuple[float, float]:
    """`command`: the runner, the program and its arguments. trace=1 runtimes take no
    warm-up runs (their tracer records every run)."""
    summary = run_runner(*command, repeat=repeat, warmup=0)
    return summary["min_ms"], summary["median_ms"]


def coverage(trace_path: str) -> tuple[float, float]:
    """(min, max) over runs of the summed instruction time / the method's time."""
    events = json.load(open(trace_path))["traceEvents"]
    method = {e["args"]["run"]: e["dur"] for e in events if e.get("cat") == "execute"}
    summed = {}
    for e in events:
        if e.get("cat") in ("kernel", "delegate"):
            summed[e["args"]["run"]] = summed.get(e["args"]["run"], 0.0) + e["dur"]
    ratios = [summed[r] / method[r] for r in method]
    return min(ratios), max(ratios)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    plain, traced = build(False), build(True)
    inputs = ["--input", *sorted(glob.glob(os.path.join(PLAIN, "nanogpt_io", "input_*.npy")))]
    trace_file = os.path.join(tempfile.mkdtemp(), "nanogpt.trace.json")
    runs = {"default runtime": [plain, PROGRAM, *inputs],
            "trace=1, no --trace": [traced, PROGRAM, *inputs],
            "trace=1, --trace FILE": [traced, PROGRAM, *inputs, "--trace", trace_file]}
    times = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, command in runs.items():
            times[name].append(min_and_median_ms(command, args.repeat))
    base = min(low for low, _ in times["default runtime"])
    print(f"nanoGPT forward, T=64, {args.rounds} rounds of runner --repeat {args.repeat}:\n")
    print("| runtime | min ms | overhead (min) | median of medians ms |")
    print("| --- | ---: | ---: | ---: |")
    for name, values in times.items():
        low = min(v for v, _ in values)
        median = statistics.median(m for _, m in values)
        print(f"| {name} | {low:.3f} | {100 * (low / base - 1):+.1f}% | {median:.3f} |")
    low, high = coverage(trace_file)
    print(f"\ninstruction times add up to {100 * low:.1f}% to {100 * high:.1f}% of the "
          "method's time per run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
