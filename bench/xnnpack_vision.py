"""Vision models on the XNNPACK delegate: the share of graph nodes it runs and forward
latency against the portable kernels and torch eager.

    .venv/bin/python bench/xnnpack_vision.py [--runs 30] [--write]

The models are manifests/models/{resnet18,mobilenet_v2,kws_cnn}.yaml (random weights
and batch-norm statistics, their example input, fp32, one thread everywhere). Each is
built with scons for target=host and target=host-xnnpack (model=..., into
build/bench-vision/); the delegated share is read from the xnnpack program's debug
record (graph nodes inside DelegateCalls over all nodes), and each runner runs forward
--repeat N times on the example input. Figures are medians after one warm-up run.
--write puts the table into BENCHMARKS.md under "## XNNPACK vision models".
"""

import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench import benchmarks_md, model_families  # noqa: E402
from bench.common import run_runner, scons  # noqa: E402
from codegen.build_layout import output_dir, tree  # noqa: E402

BUILD = tree("bench-vision")
MODELS = ("resnet18", "mobilenet_v2", "kws_cnn")
SECTION = "XNNPACK vision models"


def build(target: str) -> str:
    """Builds every model for `target`; returns the build's directory."""
    scons("target=" + target, "model=" + ",".join(MODELS), build_dir=BUILD)
    return os.path.join(REPO, output_dir(MODELS, build_dir=BUILD, target=target))


def delegated_share(out: str, model: str) -> tuple:
    """(nodes inside delegates, all nodes) from the program's debug record."""
    with open(os.path.join(out, model + ".debug.json")) as f:
        instructions = json.load(f)["methods"][0]["instructions"]
    inside = sum(len(i["nodes"]) for i in instructions if i["kind"] == "DelegateCall")
    return inside, sum(len(i["nodes"]) for i in instructions)


def runner_ms(out: str, model: str, runs: int) -> float:
    return run_runner(os.path.join(out, "bin", "runner"), os.path.join(out, model + ".pte"),
                      "--check", "--atol", "1e-4", "--rtol", "1e-4", repeat=runs)["median_ms"]


def eager_ms(model: str, runs: int) -> float:
    from exporter.manifest import load_manifest, load_model
    module, inputs = load_model(load_manifest(os.path.join(REPO, "manifests", "models",
                                                           model + ".yaml")))
    return model_families.eager_ms(module, inputs, runs)


# What --write puts above the table in BENCHMARKS.md.
INTRO = (
    "Share of graph nodes the XNNPACK delegate runs and forward latency (fp32, 1 "
    "thread, median) of the vision manifests on this machine. Command:\n\n"
    "    .venv/bin/python bench/xnnpack_vision.py --write\n\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    args = p.parse_args(argv)
    portable, xnnpack = build("host"), build("host-xnnpack")
    rows = ["| model | nodes delegated | portable, ms | XNNPACK, ms | torch eager, ms | "
            "portable / XNNPACK |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for model in MODELS:
        inside, total = delegated_share(xnnpack, model)
        slow, fast = runner_ms(portable, model, args.runs), runner_ms(xnnpack, model, args.runs)
        rows.append(f"| {model} | {inside}/{total} | {slow:.3f} | {fast:.3f} | "
                    f"{eager_ms(model, args.runs):.3f} | {slow / fast:.1f}x |")
    text = "\n".join(rows) + "\n"
    return benchmarks_md.publish(SECTION, INTRO, text, args.write)


if __name__ == "__main__":
    sys.exit(main())
