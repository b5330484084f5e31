"""Where a decode step and a prefill spend their time, per token, on the cached GPT.

    .venv/bin/python bench/generation_profile.py [--repeat 100] [--markdown]

Builds `scons model=gpt_kv trace=1` (manifests/models/gpt_kv.yaml: the demo GPT's shape
at a 256-token context with a static KV cache), runs the traced runner on one thread for
a decode step (one token at position C-1) and a prefill (C tokens at 0..C-1) at contexts
64 and 256, and sums each instruction's median time (over --repeat runs) into groups of
operators, divided by the tokens of the call: microseconds per token.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench.common import scons  # noqa: E402
from codegen.build_layout import output_dir  # noqa: E402
from bench.tables import print_table  # noqa: E402
from inspector.trace_file import read_trace  # noqa: E402

OUT = os.path.join(REPO, output_dir(["gpt_kv"], trace=True))
CONTEXTS = (64, 256)
# Operator -> group; an operator not named here counts under "other".
GROUPS = {
    "linear layers": ("aten::addmm.out", "aten::mm.out"),
    "attention": ("llm::cache_attention.out", "aten::bmm.out", "aten::where.self_out",
                  "aten::masked_fill.Scalar_out",
                  "aten::le.Tensor_out", "aten::bitwise_not.out", "aten::mul.Scalar_out",
                  "aten::_softmax.out", "aten::unsqueeze_copy.out", "aten::arange.start_out"),
    "copies of views": ("aten::view_copy.out", "aten::permute_copy.out",
                        "aten::split_with_sizes_copy.out", "aten::clone.out",
                        "aten::expand_copy.out"),
    "cache update": ("aten::index_put.out",),
}
COLUMNS = tuple(GROUPS) + ("other", "total")


def group_of(operator: str) -> str:
    return next((g for g, ops in GROUPS.items() if operator in ops), "other")


def profile(tokens: np.ndarray, positions: np.ndarray, repeat: int, folder: str) -> dict:
    """Group -> microseconds per token of one call on (tokens, positions)."""
    inputs = []
    for name, value in (("tokens", tokens), ("positions", positions)):
        path = os.path.join(folder, name + ".npy")
        np.save(path, value)
        inputs += ["--input", path]
    trace = os.path.join(folder, "trace.json")
    subprocess.run([os.path.join(OUT, "bin", "runner"), os.path.join(OUT, "gpt_kv.pte"),
                    *inputs, "--repeat", str(repeat), "--trace", trace], check=True,
                   stdout=subprocess.DEVNULL)
    timings = read_trace(trace)
    per_token = dict.fromkeys(COLUMNS, 0.0)
    for index, times in timings.instruction_us.items():
        us = float(np.median(times)) / tokens.size
        per_token[group_of(timings.names[index])] += us
        per_token["total"] += us
    return per_token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=100, help="traced runs per call")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)

    scons("model=gpt_kv", "trace=1")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for c in CONTEXTS:
            calls = {"decode": (np.array([[c % 512]]), np.array([c - 1])),
                     "prefill": (np.arange(c)[None, :] % 512, np.arange(c))}
            for name, (tokens, positions) in calls.items():
                found = profile(tokens.astype(np.int64), positions.astype(np.int64),
                                args.repeat, folder)
                rows.append([f"{name} at {c}"] + [f"{found[k]:.1f}" for k in COLUMNS])
    header = ["call"] + list(COLUMNS)
    print_table(header, rows, args.markdown)
    print("\nmicroseconds per token (the median of each instruction, summed), 1 thread")
    return 0


if __name__ == "__main__":
    sys.exit(main())
