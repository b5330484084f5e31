"""One row per model family: what export makes of it, how much XNNPACK takes, the
runtime's size and its latency against torch eager, measured side by side in one run.

    .venv/bin/python bench/model_families.py [--runs 20] [--models resnet18,gpt2] [--write]

Per model manifest of tests/e2e/test_model_families.py (one model per family, randomly
initialised, its example inputs): the core-ATen call nodes torch.export makes, the
kernel calls left after the export-time passes (host), the share of nodes XNNPACK runs
(host-xnnpack), the stripped size of a runtime built for that model alone with the size
profile (`profile=size`), and the forward latency of the host and host-xnnpack runtimes
(all models built into one runtime per target) as a ratio to torch eager; one thread
everywhere, medians over --runs runs after a warm-up. --write puts the table into
BENCHMARKS.md under "## Model families".
"""

import argparse
import glob
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench import benchmarks_md  # noqa: E402
from bench.common import run_runner, scons, stripped_size  # noqa: E402
from codegen.build_layout import output_dir, tree  # noqa: E402

BUILD = tree("bench-families")
MODELS = ("resnet18", "mobilenet_v2", "kws_cnn", "gpt2", "llama", "bert", "vit",
          "whisper_encoder", "nn_transformer", "lstm")


def runner_ms(out: str, model: str, runs: int) -> float:
    inputs = sorted(glob.glob(os.path.join(out, f"{model}_io", "input_*.npy")))
    return run_runner(os.path.join(out, "bin", "runner"), os.path.join(out, f"{model}.pte"),
                      "--input", *inputs, repeat=runs)["median_ms"]


def eager_ms(module, inputs, runs: int) -> float:
    import torch
    torch.set_num_threads(1)
    times = []
    with torch.no_grad():
        module(*inputs)
        for _ in range(runs):
            start = time.perf_counter()
            module(*inputs)
            times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def export_figures(name: str):
    """(module, inputs, core-ATen nodes, kernel calls after the passes, % delegated)."""
    from backends.xnnpack import XnnpackPartitioner
    from exporter.export import export
    from exporter.manifest import dynamic_shapes, load_manifest, load_model
    manifest = load_manifest(os.path.join(REPO, "manifests", "models", name + ".yaml"))
    module, inputs = load_model(manifest)
    shapes = dynamic_shapes(manifest, inputs)
    host = export(module, inputs, shapes)
    report = export(module, inputs, shapes, partitioner=XnnpackPartitioner()).delegation
    delegated = report.delegated_nodes / max(1, report.delegated_nodes + len(report.outside))
    return module, inputs, host.node_count, len(host.kernel_calls()), 100 * delegated


# What --write puts above the table in BENCHMARKS.md.
INTRO = (
    "One model per family (examples/zoo/, manifests in manifests/models/), randomly "
    "initialised, fp32, batch 1, one thread. Latency is a ratio to torch eager on 1 "
    "thread (lower is better). Command:\n\n"
    "    .venv/bin/python bench/model_families.py --write\n\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    args = p.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    print(f"building {len(models)} models for host and host-xnnpack", flush=True)
    for target in ("host", "host-xnnpack"):
        scons("target=" + target, "model=" + ",".join(models), build_dir=BUILD)
    outs = {t: os.path.join(REPO, output_dir(models, build_dir=BUILD, target=t))
            for t in ("host", "host-xnnpack")}
    rows = ["| model | core-ATen nodes | kernel calls after the passes | nodes on XNNPACK "
            "| runtime, size profile (bytes) | host / eager | host-xnnpack / eager |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name in models:
        print(f"measuring {name}", flush=True)
        module, inputs, nodes, calls, delegated = export_figures(name)
        scons("model=" + name, "profile=size", build_dir=BUILD)
        size = stripped_size(os.path.join(REPO, output_dir([name], build_dir=BUILD, profile="size"),
                                          "bin", "runner"))
        eager = eager_ms(module, inputs, args.runs)
        host = runner_ms(outs["host"], name, args.runs)
        xnn = runner_ms(outs["host-xnnpack"], name, args.runs)
        rows.append(f"| {name} | {nodes} | {calls} | {delegated:.0f}% | {size:,} "
                    f"| {host / eager:.2f} | {xnn / eager:.2f} |")
        print(rows[-1], flush=True)
    text = "\n".join(rows) + "\n"
    return benchmarks_md.publish("Model families", INTRO, text, args.write)


if __name__ == "__main__":
    sys.exit(main())
