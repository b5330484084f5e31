"""1 against 2 kernel threads, on an idle machine and beside a busy process.

    .venv/bin/python bench/threads.py [--rounds 3] [--runs 10] [--baseline RUNNER] [--rt]
                                      [--write]

Workloads (the host build of bench/versus_onnxruntime.py, into build/bench-ort/): the demo
GPT without its KV cache at T = 1 and 64, and torchvision's ResNet-18 on one 224x224
image. Conditions: idle (whatever else the machine runs), beside one busy Python loop
(`python -c 'while True: pass'`) the scheduler places, and beside one pinned to CPU 0
(taskset). Each round times every workload at 1 and then 2 threads under every condition
(the runner's --repeat: execute() alone), keeping each burst's median run (a thread the
system preempts shows there; the fastest run hides it); a figure is the median over
rounds, and the ratio divides the 2-thread figure by the 1-thread one of the same
condition, measured side by side. --baseline RUNNER times a runner built from other
sources (e.g. the thread pool before a change, copied out of the same build) on the same
programs in the same rounds. The load average before and after is printed beside the
table: on a machine shared with other builds, compare ratios within one run. --write puts
the table into BENCHMARKS.md under "## Threads". --rt runs the idle condition at real-time
priority (`chrt -r 10`, the pool's threads inherit it): on a machine that other builds
share it preempts them, so idle means idle; the busy conditions stay at normal priority
(at real time the runner would take the busy loop's core, and there would be no contest).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench import benchmarks_md  # noqa: E402
from bench.common import run_runner  # noqa: E402
from bench.versus_onnxruntime import BUILD, RESNET_MANIFEST, scons_build  # noqa: E402

BUSY = [sys.executable, "-c", "while True: pass"]
CONDITIONS = ("idle", "busy", "busy pinned to CPU 0")


def workloads(folder: str) -> list[tuple[str, str, list[str]]]:
    """(name, program stem, input files) for each workload."""
    from exporter.manifest import load_manifest, load_model
    os.makedirs(folder, exist_ok=True)
    work = []
    for t in (1, 64):
        path = os.path.join(folder, f"tokens_{t}.npy")
        np.save(path, (np.arange(t, dtype=np.int64) % 50)[None, :], allow_pickle=False)
        work.append((f"GPT T={t}", "nanogpt_nocache", [path]))
    _, inputs = load_model(load_manifest(os.path.join(REPO, BUILD, "resnet18_224.yaml")))
    path = os.path.join(folder, "image_224.npy")
    np.save(path, inputs[0].contiguous().numpy(), allow_pickle=False)
    work.append(("ResNet-18 224x224", "resnet18_224", [path]))
    return work


def busy_process(condition: str):
    if condition == "idle":
        return None
    pin = ["taskset", "-c", "0"] if "pinned" in condition and shutil.which("taskset") else []
    return subprocess.Popen(pin + BUSY)


def measure(runners: dict, out: str, work, rounds: int, runs: int, rt: bool = False) -> dict:
    """(runner, workload, condition, threads) -> median over rounds of the burst's
    median run, ms."""
    samples: dict = {}
    for r in range(rounds):
        for condition in CONDITIONS:
            busy = busy_process(condition)
            try:
                for name, stem, inputs in work:
                    args = [a for path in inputs for a in ("--input", path)]
                    for label, runner in runners.items():
                        for threads in (1, 2):
                            prefix = ("chrt", "-r", "10") if rt and condition == "idle" else ()
                            summary = run_runner(runner, os.path.join(out, stem + ".pte"),
                                                 *args, repeat=runs, warmup=2,
                                                 threads=threads, prefix=prefix)
                            samples.setdefault((label, name, condition, threads), []).append(
                                summary["median_ms"])
            finally:
                if busy is not None:
                    busy.kill()
                    busy.wait()
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    return {key: statistics.median(v) for key, v in samples.items()}


def table(runners: dict, work, ms: dict) -> str:
    head = "| runner | workload | " + " | ".join(
        f"{c}: 1 thread, ms | 2 threads, ms | 2 / 1" for c in CONDITIONS) + " |"
    lines = [head, "|---|---" + "|---:" * (3 * len(CONDITIONS)) + "|"]
    for label in runners:
        for name, _, _ in work:
            cells = []
            for c in CONDITIONS:
                one, two = ms[(label, name, c, 1)], ms[(label, name, c, 2)]
                cells += [f"{one:.2f}", f"{two:.2f}", f"{two / one:.2f}x"]
            lines.append(f"| {label} | {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=10, help="timed runs per burst")
    p.add_argument("--baseline", help="another runner to time on the same programs")
    p.add_argument("--rt", action="store_true",
                   help="the idle condition at real-time priority (chrt -r 10; needs the "
                        "right to it: root or CAP_SYS_NICE)")
    p.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    args = p.parse_args(argv)
    manifest = os.path.join(REPO, BUILD, "resnet18_224.yaml")
    os.makedirs(os.path.dirname(manifest), exist_ok=True)
    with open(manifest, "w") as f:
        f.write(RESNET_MANIFEST)
    out = scons_build("host", ["nanogpt_nocache", "mlp", os.path.relpath(manifest, REPO)])
    work = workloads(os.path.join(REPO, BUILD, "inputs-threads"))
    before = os.getloadavg()[0]
    runners = {"this build": os.path.join(out, "bin", "runner")}
    if args.baseline:
        runners["baseline"] = os.path.abspath(args.baseline)
    if args.rt and subprocess.run(["chrt", "-r", "10", "true"]).returncode != 0:
        sys.exit("error: --rt: chrt -r 10 is not allowed here (root or CAP_SYS_NICE)")
    ms = measure(runners, out, work, args.rounds, args.runs, args.rt)
    after = os.getloadavg()[0]
    note = (f"{os.cpu_count()} cores shared with other builds (load average {before:.1f} "
            f"before, {after:.1f} after); {args.rounds} rounds of {args.runs} runs, the "
            "median over rounds of each burst's median run"
            + ("; idle at real-time priority (chrt -r 10), busy at normal priority" if args.rt
               else "") + ". Compare the ratios, measured side by side.")
    print(table(runners, work, ms))
    print("\n" + note)
    if args.write:
        benchmarks_md.write_section("Threads", (
            "1 against 2 kernel threads (the host build; `busy`: one `python -c 'while "
            "True: pass'` beside the runner, placed by the scheduler or pinned to CPU 0). "
            + note + " Command:\n\n    .venv/bin/python bench/threads.py --write"
            + (" --baseline RUNNER" if args.baseline else "") + (" --rt" if args.rt else "")
            + "\n\n" + table(runners, work, ms)), keep_subsections=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
