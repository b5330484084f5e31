"""Tailor against torch eager and onnxruntime, side by side in one run, one thread each.

    .venv/bin/python bench/versus_onnxruntime.py [--rounds 7] [--runs 20] [--write]

Workloads: the demo GPT without its KV cache (manifests/models/nanogpt_nocache.yaml: a
forward over all T tokens, as onnxruntime and eager run it) on T = 1, 16 and 64 tokens, a
ResNet-18 (torchvision, random weights) on one 224x224 image, and the MLP
(manifests/models/mlp.yaml). Engines, all on one thread:

- torch eager (torch.set_num_threads(1)), in this process;
- onnxruntime (CPU provider, intra- and inter-op threads 1, all graph optimizations),
  the model exported with torch.onnx.export at each workload's static shape; a
  benchmark-only dependency (bench/requirements.txt): without it the column says so;
- Tailor's `host` build (optimized kernels ahead of portable) and `host-xnnpack` build,
  each one runtime holding the three models (`scons model=...`, into build/bench-ort/),
  timed by the runner (`--repeat`: execute() alone, no process start or program load).

Rounds interleave: each round times every engine on every workload for --runs runs
(after one warm-up run; the runner, a new process each time, after as many untimed runs
as it times: with none, its first runs' page faults and cold caches put the GPT's T=64
10% slow), in the same order, and keeps the burst's fastest run; the figure
is the median over rounds of those, so other work on this shared machine (it slows every
engine, eager's Python most) costs one round, not one engine. Then the GEMM alone (bench/gemm.py's `time`): GFLOP/s at 256^3 against
the single-core FMA peak it measures. --write puts both tables into BENCHMARKS.md under
"## Versus onnxruntime".
"""

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench import benchmarks_md  # noqa: E402
from bench import gemm as gemm_bench  # noqa: E402
from bench.common import run_runner, scons  # noqa: E402
from codegen.build_layout import output_dir, tree  # noqa: E402

BUILD = tree("bench-ort")
TARGETS = ("host", "host-xnnpack")
GPT_LENGTHS = (1, 16, 64)
SECTION = "Versus onnxruntime"
# The CNN: torchvision's ResNet-18 at 224x224 (manifests/models/resnet18.yaml is 64x64).
RESNET_MANIFEST = """\
description: torchvision ResNet-18 (random weights) on a 224x224 image, for bench/versus_onnxruntime.py
factory: examples.zoo.torchvision_models:make_classifier
factory_args: {name: resnet18, size: 224}
tolerance: {atol: 1.0e-3, rtol: 1.0e-3}
"""


def scons_build(target: str, manifests: list[str], build_dir: str = BUILD) -> str:
    """Builds one runtime with every model for `target`; returns its directory (named as
    site_scons/stages.py names a model set: the manifests' stems joined by '+')."""
    scons("target=" + target, "model=" + ",".join(manifests), build_dir=build_dir)
    names = [os.path.splitext(os.path.basename(m))[0] for m in manifests]
    return os.path.join(REPO, output_dir(names, build_dir=build_dir, target=target))


class Workload:
    """One model on one input: the torch module, its inputs, the program's name."""

    def __init__(self, name: str, program: str, module, inputs: tuple):
        self.name, self.program, self.module, self.inputs = name, program, module, inputs
        self.npy: list[str] = []
        self.onnx = ""


def load_workloads(resnet_manifest: str) -> list[Workload]:
    import torch

    from exporter.manifest import load_manifest, load_model
    models = os.path.join(REPO, "manifests", "models")
    gpt, _ = load_model(load_manifest(os.path.join(models, "nanogpt_nocache.yaml")))
    mlp, mlp_inputs = load_model(load_manifest(os.path.join(models, "mlp.yaml")))
    resnet, resnet_inputs = load_model(load_manifest(resnet_manifest))
    work = [Workload(f"GPT T={t}", "nanogpt_nocache", gpt.eval(),
                     ((torch.arange(t) % gpt.config.vocab_size).unsqueeze(0),))
            for t in GPT_LENGTHS]
    work.append(Workload("ResNet-18 224x224", "resnet18_224", resnet.eval(), resnet_inputs))
    work.append(Workload("MLP", "mlp", mlp.eval(), mlp_inputs))
    return work


def save_inputs(work: list[Workload], folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    for i, w in enumerate(work):
        w.npy = []
        for j, value in enumerate(w.inputs):
            path = os.path.join(folder, f"input_{i}_{j}.npy")
            np.save(path, value.contiguous().numpy(), allow_pickle=False)
            w.npy.append(path)


def onnxruntime_sessions(work: list[Workload], folder: str, threads: tuple = (1,)):
    """(name, thread count) -> an onnxruntime session per workload and count of intra-op
    threads, or (None, why) when it cannot run."""
    try:
        import onnxruntime
    except ImportError:
        return None, ("onnxruntime is not installed: "
                      ".venv/bin/pip install -r bench/requirements.txt")
    import torch
    sessions = {}
    for i, w in enumerate(work):
        path = os.path.join(folder, f"workload_{i}.onnx")
        torch.onnx.export(w.module, w.inputs, path, dynamo=False)
        for count in threads:
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = count
            options.inter_op_num_threads = 1
            options.graph_optimization_level = \
                onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
            sessions[(w.name, count)] = onnxruntime.InferenceSession(
                path, options, providers=["CPUExecutionProvider"])
    return sessions, ""


def burst_ms(fn, runs: int) -> float:
    """The fastest of `runs` calls of fn after one warm-up call, in ms."""
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return min(times)


def runner_ms(out: str, w: Workload, runs: int, threads: int = 1) -> float:
    return run_runner(os.path.join(out, "bin", "runner"), os.path.join(out, w.program + ".pte"),
                      "--input", *w.npy, repeat=runs, warmup=runs, threads=threads)["min_ms"]


def measure(work: list[Workload], builds: dict, sessions, rounds: int, runs: int) -> dict:
    """(workload, engine) -> median over rounds of each round's fastest run, ms."""
    import torch
    torch.set_num_threads(1)
    samples: dict = {}
    for r in range(rounds):
        for w in work:
            with torch.no_grad():
                samples.setdefault((w.name, "eager"), []).append(
                    burst_ms(lambda: w.module(*w.inputs), runs))
            if sessions:
                session = sessions[(w.name, 1)]
                feed = {i.name: v.numpy() for i, v in zip(session.get_inputs(), w.inputs)}
                samples.setdefault((w.name, "onnxruntime"), []).append(
                    burst_ms(lambda: session.run(None, feed), runs))
            for target, out in builds.items():
                samples.setdefault((w.name, target), []).append(runner_ms(out, w, runs))
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    return {key: statistics.median(values) for key, values in samples.items()}


def gemm_line(reps: int) -> str:
    """GFLOP/s of the 256^3 GEMM (best level) against the peak bench/gemm.cpp measures."""
    binary, _ = gemm_bench.build("host")
    table = subprocess.run([binary, "time", str(reps)], check=True, capture_output=True,
                           text=True).stdout
    peak = float(re.search(r"^peak ([0-9.]+)", table, re.M).group(1))
    row = re.search(r"^\| 256x256x256 \|(.*)$", table, re.M).group(1).split("|")
    # Columns: portable, then each level, then best / peak, 2 threads, prepacked, ratio.
    best = max(float(cell) for cell in row[1:-5] if cell.strip())
    return (f"GEMM 256x256x256, one thread: {best:.1f} GFLOP/s, {100 * best / peak:.0f}% of "
            f"the single-core FMA peak of {peak:.1f} GFLOP/s measured on this CPU "
            f"({gemm_bench.cpu_name()})")


def table(work: list[Workload], engines: list[tuple[str, str]], ms: dict,
          missing: str) -> str:
    head = "| workload | " + " | ".join(f"{label}, ms" for _, label in engines) + " | " + \
        " | ".join(f"{label} / eager" for key, label in engines if key != "eager") + " |"
    lines = [head, "|---" + "|---:" * (2 * len(engines) - 1) + "|"]
    for w in work:
        eager = ms[(w.name, "eager")]
        cells = [f"{ms[(w.name, key)]:.3f}" if (w.name, key) in ms else "—"
                 for key, _ in engines]
        ratios = [f"{ms[(w.name, key)] / eager:.2f}x" if (w.name, key) in ms else "—"
                  for key, _ in engines if key != "eager"]
        lines.append(f"| {w.name} | " + " | ".join(cells + ratios) + " |")
    text = "\n".join(lines) + "\n"
    if missing:
        text += f"\nonnxruntime column skipped: {missing}\n"
    return text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--runs", type=int, default=20, help="timed runs per engine and round")
    p.add_argument("--gemm-reps", type=int, default=30)
    p.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    args = p.parse_args(argv)

    folder = os.path.join(REPO, BUILD, "inputs")
    os.makedirs(folder, exist_ok=True)
    resnet_manifest = os.path.join(REPO, BUILD, "resnet18_224.yaml")
    with open(resnet_manifest, "w") as f:
        f.write(RESNET_MANIFEST)
    manifests = ["nanogpt_nocache", "mlp", os.path.relpath(resnet_manifest, REPO)]
    builds = {target: scons_build(target, manifests) for target in TARGETS}
    work = load_workloads(resnet_manifest)
    save_inputs(work, folder)
    sessions, missing = onnxruntime_sessions(work, folder)
    ms = measure(work, builds, sessions, args.rounds, args.runs)
    engines = [("eager", "torch eager"), ("onnxruntime", "onnxruntime"),
               ("host", "Tailor host"), ("host-xnnpack", "Tailor host-xnnpack")]
    result = table(work, engines, ms, missing)
    gemm = gemm_line(args.gemm_reps)
    print(result)
    print(gemm)
    if args.write:
        import onnxruntime
        import torch
        benchmarks_md.write_section(SECTION, (
            "Latency of one forward pass on one thread, side by side in one run (fp32, batch "
            f"1; {args.rounds} interleaved rounds of {args.runs} runs per engine, the median "
            "over rounds of each round's fastest run; the ratios divide by torch eager's time, "
            "lower is better). "
            f"torch {torch.__version__}, onnxruntime {onnxruntime.__version__} (the model "
            "from torch.onnx.export at the workload's static shape, all graph "
            "optimizations), Tailor's host and host-xnnpack runtimes (the runner's "
            "execute() time; the GPT is one program with a dynamic T). Measured "
            f"{datetime.date.today()} on {gemm_bench.cpu_name()}, {os.cpu_count()} cores "
            "shared with other jobs. Command:\n\n"
            "    .venv/bin/python bench/versus_onnxruntime.py --write\n\n"
            + result + "\n" + gemm + ".\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
