"""Vision models side by side: torch eager, Tailor, onnxruntime and ExecuTorch-XNNPACK in
one run, at 1 and 2 threads, fp32 and int8.

    .venv/bin/python bench/vision.py [--rounds 5] [--runs 10] [--et-python PY] [--write]

Models (torchvision, random weights, batch 1, one 224x224 image, 1000 classes):
ResNet-18, MobileNetV2, EfficientNet-B0 and ViT-Ti/16 (examples/zoo/torchvision_models.py
make_vit: 12 blocks of width 192), fp32; ResNet-18 and MobileNetV2 also int8. Engines, each
at 1 and at 2 threads:

- torch eager (torch.set_num_threads), in this process; the int8 rows divide by the fp32
  eager time, since eager has no fast int8 CNN path to compare with;
- Tailor's `host` and `host-xnnpack` runtimes (one runtime per target holding every model,
  built with scons into build/bench-vision224/; the runner's execute() time, --threads);
  the int8 models are the manifests with `quantize: 8da8w` (int8 per-channel weights and
  dynamic int8 activations: every convolution of one group is tailor_quant::conv2d, the
  classifier tailor_quant::linear, the depthwise convolutions float);
- onnxruntime (CPU provider, intra-op threads, all graph optimizations; fp32 only);
- ExecuTorch 1.5.1 with its XNNPACK delegate, run by bench/executorch_worker.py in the
  ExecuTorch venv (bench/requirements-executorch.txt; --et-python, default .venv-et), one
  worker per thread count; int8 is its XNNPACKQuantizer (PT2E, static int8 activations,
  per-channel int8 weights). Without that venv its column says why.

Rounds interleave (as in bench/versus_onnxruntime.py): each round times every engine on
every model and thread count, the fastest of --runs runs after a warm-up; a figure is the
median over rounds. The table shows eager's ms and every engine as a ratio to eager at the
same thread count (lower is better) with its ms, and the load average of this shared
machine before and after. A run takes about 20 minutes on a loaded 2-core machine (4 of
them exporting for ExecuTorch), plus the first build. --write puts it into BENCHMARKS.md under "## Vision side by side".

--models and --threads restrict a run (`--models efficientnet_b0_224,vit_tiny_224
--threads 1`); --also LABEL=DIR times a copy of an earlier build's directory beside the
others, so a change is measured before and after in one run.
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
from codegen import build_layout  # noqa: E402
from bench import gemm as gemm_bench  # noqa: E402
from bench.versus_onnxruntime import (  # noqa: E402
    Workload, burst_ms, onnxruntime_sessions, runner_ms, save_inputs, scons_build)

BUILD = build_layout.tree("bench-vision224")
TARGETS = ("host", "host-xnnpack")
THREADS = (1, 2)
SECTION = "Vision side by side"
FACTORY = "examples.zoo.torchvision_models"
# (program stem, row label, factory, factory arguments, quantize scheme or None)
MODELS = (
    ("resnet18_224", "ResNet-18", "make_classifier", "{name: resnet18, size: 224, "
     "num_classes: 1000}", None),
    ("mobilenet_v2_224", "MobileNetV2", "make_classifier", "{name: mobilenet_v2, size: 224, "
     "num_classes: 1000}", None),
    ("efficientnet_b0_224", "EfficientNet-B0", "make_classifier", "{name: efficientnet_b0, "
     "size: 224, num_classes: 1000}", None),
    ("vit_tiny_224", "ViT-Ti/16", "make_vit", "{size: 224}", None),
    ("resnet18_224_int8", "ResNet-18 int8", "make_classifier", "{name: resnet18, size: 224, "
     "num_classes: 1000}", "8da8w"),
    ("mobilenet_v2_224_int8", "MobileNetV2 int8", "make_classifier", "{name: mobilenet_v2, "
     "size: 224, num_classes: 1000}", "8da8w"),
)
ENGINES = (("host", "Tailor host"), ("host-xnnpack", "Tailor host-xnnpack"),
           ("onnxruntime", "onnxruntime"), ("executorch", "ExecuTorch-XNNPACK"))


def write_manifests(folder: str, models=MODELS) -> list[str]:
    """One manifest per model of `models` in `folder`; returns their paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for stem, label, factory, args, scheme in models:
        path = os.path.join(folder, stem + ".yaml")
        with open(path, "w") as f:
            # int8: a rounding that flips between runtime and eager in one of ResNet-18's
            # dynamically quantized layers moves its logits (about 7) by up to 0.005.
            tolerance = "{atol: 1.0e-2, rtol: 1.0e-2}" if scheme else \
                "{atol: 1.0e-3, rtol: 1.0e-3}"
            f.write(f"description: {label} at 224x224 for bench/vision.py\n"
                    f"factory: {FACTORY}:{factory}\nfactory_args: {args}\n"
                    f"tolerance: {tolerance}\n" + (f"quantize: {scheme}\n" if scheme else ""))
        paths.append(path)
    return paths


class ExecuTorch:
    """bench/executorch_worker.py processes, one per thread count, or why there are none."""

    def __init__(self, python: str, manifests: list[str], folder: str, models=MODELS,
                 threads=THREADS):
        self.workers, self.missing = {}, ""
        if not os.path.exists(python):
            self.missing = (f"no ExecuTorch venv at {python}: make it as "
                            "bench/requirements-executorch.txt says, or pass --et-python")
            return
        specs = []
        for (stem, _, _, _, scheme), path in zip(models, manifests):
            specs.append(f"{stem}={path}" + (":int8" if scheme else ""))
        # The first worker exports the programs into `folder`; the second loads them.
        for count in threads:
            worker = subprocess.Popen(
                [python, "-W", "ignore", os.path.join(REPO, "bench", "executorch_worker.py"),
                 str(count), folder, *specs], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, cwd=REPO)
            if worker.stdout.readline().strip() != "ready":
                sys.exit(f"error: bench/executorch_worker.py ({python}) failed; run it by "
                         "hand to see why")
            self.workers[count] = worker

    def ms(self, stem: str, threads: int, runs: int) -> float:
        worker = self.workers[threads]
        worker.stdin.write(f"{stem} {runs}\n")
        worker.stdin.flush()
        return float(worker.stdout.readline())

    def close(self) -> None:
        for worker in self.workers.values():
            worker.stdin.close()
            worker.wait()


def measure(work, builds: dict, sessions, executorch: ExecuTorch, rounds: int,
            runs: int, thread_counts=THREADS) -> dict:
    """(workload, engine, threads) -> median over rounds of each burst's fastest run, ms."""
    import torch
    samples: dict = {}

    def add(w, engine, threads, ms):
        samples.setdefault((w.name, engine, threads), []).append(ms)

    for r in range(rounds):
        for threads in thread_counts:
            torch.set_num_threads(threads)
            for w in work:
                if not w.name.endswith("int8"):
                    with torch.no_grad():
                        add(w, "eager", threads, burst_ms(lambda: w.module(*w.inputs), runs))
                    if sessions:
                        session = sessions[(w.name, threads)]
                        feed = {i.name: v.numpy()
                                for i, v in zip(session.get_inputs(), w.inputs)}
                        add(w, "onnxruntime", threads,
                            burst_ms(lambda: session.run(None, feed), runs))
                for target, out in builds.items():
                    add(w, target, threads, runner_ms(out, w, runs, threads))
                if executorch.workers:
                    add(w, "executorch", threads, executorch.ms(w.program, threads, runs))
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    return {key: statistics.median(values) for key, values in samples.items()}


def table(work, ms: dict, thread_counts=THREADS, engines=ENGINES) -> str:
    """One row per model and thread count: eager's ms, then each engine's ratio to eager
    at the same thread count with its ms beside it (2 threads can be slower than 1 on a
    busy machine, so the ms say which)."""
    lines = ["| model | threads | torch eager, ms | " + " | ".join(
        f"{label} / eager (ms)" for _, label in engines) + " |",
        "|---|---:|---:" + "|---:" * len(engines) + "|"]
    for threads in thread_counts:
        for w in work:
            eager = ms[(w.name.removesuffix(" int8"), "eager", threads)]
            cells = [f"{ms[(w.name, key, threads)] / eager:.2f}x "
                     f"({ms[(w.name, key, threads)]:.1f})"
                     if (w.name, key, threads) in ms else "—" for key, _ in engines]
            lines.append(f"| {w.name} | {threads} | {eager:.1f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def select(args) -> tuple:
    """(models, thread counts, {label: build directory}) that the options name; exits
    with a message naming the option on a bad value."""
    stems = [m[0] for m in MODELS]
    wanted = [s for s in args.models.split(",") if s]
    unknown = [s for s in wanted if s not in stems]
    if unknown or not wanted:
        sys.exit(f"error: --models {args.models}: unknown {', '.join(unknown) or 'empty'}; "
                 f"choose from {', '.join(stems)}")
    try:
        thread_counts = tuple(int(t) for t in args.threads.split(","))
    except ValueError:
        thread_counts = ()
    if not thread_counts or min(thread_counts) < 1:
        sys.exit(f"error: --threads {args.threads}: give positive counts, e.g. 1,2")
    also = {}
    for item in args.also:
        label, _, path = item.partition("=")
        if not label or not os.path.isfile(build_layout.runner(path)):
            sys.exit(f"error: --also {item}: give LABEL=DIR, DIR holding bin/runner and "
                     "the programs")
        also[label] = os.path.abspath(path)
    if args.write and (len(wanted) < len(stems) or thread_counts != THREADS or also):
        sys.exit("error: --write replaces the whole section: run it with every model and "
                 "thread count and no --also (or copy re-measured rows by hand)")
    return tuple(m for m in MODELS if m[0] in wanted), thread_counts, also


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=10, help="timed runs per engine and round")
    p.add_argument("--et-python", default=os.path.join(REPO, ".venv-et", "bin", "python"),
                   help="the ExecuTorch venv's python (bench/requirements-executorch.txt)")
    p.add_argument("--models", default=",".join(m[0] for m in MODELS),
                   help="comma-separated program stems to time (default: all of them)")
    p.add_argument("--threads", default=",".join(map(str, THREADS)),
                   help="comma-separated thread counts (default: 1,2)")
    p.add_argument("--also", action="append", default=[], metavar="LABEL=DIR",
                   help="also time the runner and programs of an earlier build's output "
                        "directory (a copy of one this script built), as a column LABEL: "
                        "a before/after comparison in one run")
    p.add_argument("--write", action="store_true",
                   help="update BENCHMARKS.md (every model and thread count only)")
    args = p.parse_args(argv)
    models, thread_counts, also = select(args)

    from exporter.manifest import load_manifest, load_model
    folder = os.path.join(REPO, BUILD)
    manifests = write_manifests(os.path.join(folder, "manifests"), models)
    load_before = os.getloadavg()[0]
    builds = {target: scons_build(target, [os.path.relpath(m, REPO) for m in manifests],
                                  build_dir=BUILD) for target in TARGETS}
    builds.update(also)
    work = []
    for (stem, label, _, _, scheme), path in zip(models, manifests):
        module, inputs = load_model(load_manifest(path))
        work.append(Workload(label, stem, module.eval(), inputs))
    save_inputs(work, os.path.join(folder, "inputs"))
    fp32 = [w for w in work if not w.name.endswith("int8")]
    sessions, ort_missing = onnxruntime_sessions(fp32, os.path.join(folder, "inputs"),
                                                 thread_counts)
    executorch = ExecuTorch(os.path.abspath(args.et_python), manifests,
                            os.path.join(folder, "executorch"), models, thread_counts)
    try:
        ms = measure(work, builds, sessions, executorch, args.rounds, args.runs,
                     thread_counts)
    finally:
        executorch.close()
    load_after = os.getloadavg()[0]
    engines = ENGINES + tuple((label, label) for label in also)
    result = table(work, ms, thread_counts, engines)
    notes = [f"load average {load_before:.1f} before, {load_after:.1f} after, on "
             f"{os.cpu_count()} cores shared with other engineers' builds"]
    notes += [f"{name} column skipped: {why}" for name, why in
              (("onnxruntime", ort_missing), ("ExecuTorch", executorch.missing)) if why]
    text = result + "\n" + "; ".join(notes) + ".\n"
    print(text)
    if args.write:
        import torch
        benchmarks_md.write_section(SECTION, keep_subsections=True, text=(
            "Latency of one forward pass of torchvision models (random weights, batch 1, "
            f"224x224) side by side in one run: {args.rounds} interleaved rounds of "
            f"{args.runs} runs per engine, the median over rounds of each round's fastest "
            "run, as a ratio to torch eager at the same thread count (lower is better; the "
            "int8 rows divide by fp32 eager). "
            f"torch {torch.__version__}; Tailor host and host-xnnpack (runner execute() "
            "time; int8: `quantize: 8da8w`, every convolution of one group and the "
            "classifier int8 with dynamic activations, the depthwise ones float); "
            "onnxruntime (fp32); "
            "ExecuTorch 1.5.1 with XNNPACK (int8: XNNPACKQuantizer, static per-channel). "
            f"Measured {datetime.date.today()} on {gemm_bench.cpu_name()}. Command:\n\n"
            "    .venv/bin/python bench/vision.py --write [--et-python .venv-et/bin/python]"
            "\n\n" + text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
