"""Weights packed once at load against packed on every call: speed and memory, one run.

    .venv/bin/python bench/prepack.py [--rounds 5] [--runs 10] [--write]

One `host` runtime holding the GPT without its KV cache (T = 1, 16, 64), ResNet-18 at
224x224 and the MLP (bench/versus_onnxruntime.py's build and inputs, in build/bench-ort/),
each workload timed by the runner with its constant weights packed at load (the default)
and with `--no-prepack` (the kernels pack on every call, as before): the same binary and
program, so the ratio is the prepacking alone. Rounds interleave the two; each keeps a
burst's fastest run and the process's CPU time per run, and the figures are medians over
rounds (a shared machine slows one round, not one variant; a long run is preempted, its
CPU time is not). Memory, per workload and variant: the packed copies' bytes (the
runner's --json), the program file, and the runner process's peak resident set
(/usr/bin/time): the mmap'd constants a kernel no longer reads are not brought in.
--write puts the table into BENCHMARKS.md under "## Prepacked weights".
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench import benchmarks_md  # noqa: E402
from bench import gemm as gemm_bench  # noqa: E402
from bench import versus_onnxruntime as ort  # noqa: E402

SECTION = "Prepacked weights"
VARIANTS = (("packed", ()), ("per call", ("--no-prepack",)))


def run_timed(runner: str, program: str, args: list[str], runs: int) -> dict:
    """One runner process: `runs` untimed then `runs` timed executions. Returns its --json
    summary plus the process's CPU seconds and peak RSS (KB) from /usr/bin/time, which
    forks from a small process (a child forked from this Python keeps its RSS as its
    peak across exec)."""
    with tempfile.TemporaryDirectory() as tmp:
        summary, usage = os.path.join(tmp, "summary.json"), os.path.join(tmp, "usage")
        cmd = ["/usr/bin/time", "-f", "%U %S %M", "-o", usage, runner, program, *args,
               "--warmup", str(runs), "--repeat", str(runs), "--json", summary]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"error: {' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
        with open(summary) as f:
            result = json.load(f)
        with open(usage) as f:
            user, system, rss = f.read().split()[-3:]
    result["cpu_s"] = float(user) + float(system)
    result["rss_kb"] = int(rss)
    return result


def ratio(once: float, per_call: float) -> str:
    # 0: under the clock's resolution (the CPU time of short runs).
    return f"{once / per_call:.2f}x" if per_call > 0 else "—"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=10, help="timed runs per variant and round")
    p.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    args = p.parse_args(argv)

    folder = os.path.join(REPO, ort.BUILD, "inputs")
    resnet_manifest = os.path.join(REPO, ort.BUILD, "resnet18_224.yaml")
    os.makedirs(folder, exist_ok=True)
    with open(resnet_manifest, "w") as f:
        f.write(ort.RESNET_MANIFEST)
    out = ort.scons_build("host", ["nanogpt_nocache", "mlp",
                                   os.path.relpath(resnet_manifest, REPO)])
    work = ort.load_workloads(resnet_manifest)
    ort.save_inputs(work, folder)
    runner = os.path.join(out, "bin", "runner")

    samples: dict = {}
    last: dict = {}
    for r in range(args.rounds):
        for w in work:
            program = os.path.join(out, w.program + ".pte")
            for name, flags in VARIANTS:
                summary = run_timed(runner, program, ["--input", *w.npy, *flags], args.runs)
                # Wall time (a burst's fastest run) and CPU time per execution (the whole
                # process over its 2 * runs executions, load and packing included): on a
                # machine with more jobs than cores a long run is preempted, its CPU time
                # is not.
                samples.setdefault((w.name, name, "wall"), []).append(summary["min_ms"])
                # /usr/bin/time counts in 10 ms: a process of less CPU is not measured.
                samples.setdefault((w.name, name, "cpu"), []).append(
                    1e3 * summary["cpu_s"] / (2 * args.runs) if summary["cpu_s"] >= 0.2
                    else 0.0)
                last[(w.name, name)] = summary
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    ms = {key: statistics.median(values) for key, values in samples.items()}

    lines = ["| workload | wall, once / per call, ms | ratio | CPU per run, once / per call, "
             "ms | ratio | packed copies, MB | program file, MB | peak RSS, once / per "
             "call, MB |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for w in work:
        program = os.path.join(out, w.program + ".pte")
        wall = [ms[(w.name, name, "wall")] for name, _ in VARIANTS]
        cpu = [ms[(w.name, name, "cpu")] for name, _ in VARIANTS]
        rss = [last[(w.name, name)]["rss_kb"] / 1024 for name, _ in VARIANTS]
        lines.append(f"| {w.name} | {wall[0]:.3f} / {wall[1]:.3f} | {ratio(*wall)} | "
                     + (f"{cpu[0]:.1f} / {cpu[1]:.1f}" if cpu[1] > 0 else "—")
                     + f" | {ratio(*cpu)} | "
                     f"{last[(w.name, 'packed')]['prepacked_bytes'] / 2**20:.1f} | "
                     f"{os.path.getsize(program) / 2**20:.1f} | {rss[0]:.1f} / {rss[1]:.1f} |")
    result = "\n".join(lines) + "\n"
    print(result)
    if args.write:
        benchmarks_md.write_section(SECTION, keep_subsections=True, text=(
            "Constant weights packed once at method load (runtime/kernel/prepack.h: the "
            "GEMM's b strips of a linear layer, Winograd's transformed filters) against "
            "packed on every call (`runner --no-prepack`, the same binary and program), "
            f"one thread, side by side in one run ({args.rounds} interleaved rounds, each one "
            f"runner process of {args.runs} untimed and {args.runs} timed runs per variant; "
            "the median over rounds of each round's fastest run, and of its CPU time per "
            "run, load and packing included). Peak RSS: that process's. Measured "
            f"{datetime.date.today()} on {gemm_bench.cpu_name()}, {os.cpu_count()} cores "
            "shared with other jobs. Command:\n\n"
            "    .venv/bin/python bench/prepack.py --write\n\n" + result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
