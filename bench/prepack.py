"""Weights packed once at load against packed on every call: speed and memory, one run.

    .venv/bin/python bench/prepack.py [--rounds 5] [--runs 10] [--write]

One `host` runtime holding the GPT without its KV cache (T = 1, 16, 64), ResNet-18 at
224x224 and the MLP (bench/versus_onnxruntime.py's build and inputs, in build/bench-ort/),
each workload timed by the runner with its constant weights packed at load (the default)
and with `--no-prepack` (the kernels pack on every call, as before): the same binary and
program, so the ratio is the prepacking alone. Rounds interleave the two; each keeps a
burst's fastest run, and the figure is the median over rounds (a shared machine slows
one round, not one variant). Memory, per workload and variant: the packed copies' bytes
(the runner's --json), the program's constant bytes (its file), and the peak resident
set of a process that loads the program and runs it once (os.wait4's ru_maxrss): the
mmap'd constants a kernel no longer reads are not brought in. --write puts the table
into BENCHMARKS.md under "## Prepacked weights".
"""

import argparse
import datetime
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench import benchmarks_md  # noqa: E402
from bench import gemm as gemm_bench  # noqa: E402
from bench import versus_onnxruntime as ort  # noqa: E402
from bench.common import run_runner  # noqa: E402

SECTION = "Prepacked weights"
VARIANTS = (("packed", ()), ("per call", ("--no-prepack",)))


def peak_rss_kb(cmd: list[str]) -> int:
    """Peak resident set of the process running `cmd`, in KB."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"error: {' '.join(cmd)} failed: {proc.stderr.read().decode()}")
    return usage.ru_maxrss


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
    packed_bytes = {}
    for r in range(args.rounds):
        for w in work:
            program = os.path.join(out, w.program + ".pte")
            for name, flags in VARIANTS:
                summary = run_runner(runner, program, "--input", *w.npy, *flags,
                                     repeat=args.runs, warmup=args.runs)
                samples.setdefault((w.name, name), []).append(summary["min_ms"])
                packed_bytes[(w.name, name)] = summary["prepacked_bytes"]
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    ms = {key: statistics.median(values) for key, values in samples.items()}

    lines = ["| workload | packed once, ms | packed per call, ms | once / per call | "
             "packed copies, MB | constants (file), MB | peak RSS once, MB | "
             "peak RSS per call, MB |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for w in work:
        program = os.path.join(out, w.program + ".pte")
        rss = {name: peak_rss_kb([runner, program, "--input", *w.npy, *flags]) / 1024
               for name, flags in VARIANTS}
        once, per_call = ms[(w.name, "packed")], ms[(w.name, "per call")]
        lines.append(f"| {w.name} | {once:.3f} | {per_call:.3f} | {once / per_call:.2f}x | "
                     f"{packed_bytes[(w.name, 'packed')] / 2**20:.1f} | "
                     f"{os.path.getsize(program) / 2**20:.1f} | {rss['packed']:.1f} | "
                     f"{rss['per call']:.1f} |")
    result = "\n".join(lines) + "\n"
    print(result)
    if args.write:
        benchmarks_md.write_section(SECTION, (
            "Constant weights packed once at method load (runtime/kernel/prepack.h: the "
            "GEMM's b strips of a linear layer, Winograd's transformed filters) against "
            "packed on every call (`runner --no-prepack`, the same binary and program), "
            f"one thread, side by side in one run ({args.rounds} interleaved rounds of "
            f"{args.runs} runs, the median over rounds of each round's fastest run). Peak "
            "RSS: one process loading the program and running it once. Measured "
            f"{datetime.date.today()} on {gemm_bench.cpu_name()}, {os.cpu_count()} cores "
            "shared with other jobs. Command:\n\n"
            "    .venv/bin/python bench/prepack.py --write\n\n" + result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
