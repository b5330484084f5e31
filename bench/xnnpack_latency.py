"""GPT forward latency: portable kernels, optimized kernels, the XNNPACK delegate and torch
eager, in one run;
and the runtime's size with XNNPACK (our binary and XNNPACK's shared libraries apart).

    .venv/bin/python bench/xnnpack_latency.py [--runs 50] [--write]

The GPT is examples/nanogpt/model.py with n_layer=4, n_head=4, n_embd=128, vocab=512,
block_size=64, seeded random weights, one sequence of T=64 tokens, fp32, one thread
everywhere (torch.set_num_threads(1), runner --threads 1). It is exported twice (without
and with XnnpackPartitioner) into build/bench-xnnpack/, built with scons for target=host
(with libraries=portable,prim, and with the target's own: optimized ahead of portable)
and target=host-xnnpack (programs=), and each runner runs forward --repeat N times on
the same input (inputs re-set before each run, outside the timing). Each figure is the
median over N runs after one warm-up run. --write puts the table into BENCHMARKS.md
under "## XNNPACK".
"""

import argparse
import os
import re
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from bench import benchmarks_md  # noqa: E402
from bench.common import run_runner, scons, stripped_size  # noqa: E402
from codegen.build_layout import output_dir, tree  # noqa: E402

BUILD = tree("bench-xnnpack")
CONFIG = dict(n_layer=4, n_head=4, n_embd=128, vocab_size=512, block_size=64)
T = 64
XNNPACK_LIBS = ("libXNNPACK.so.0", "libpthreadpool.so.0", "libcpuinfo.so.0")
ANCHORS = {"portable": "50.6", "optimized": "—", "xnnpack": "1.47", "eager": "2.13"}


def export_programs(out: str):
    import numpy as np
    import torch

    from backends.xnnpack import XnnpackPartitioner
    from examples.nanogpt.model import make_gpt
    from exporter.export import export

    model, _ = make_gpt(example_length=T, **CONFIG)
    idx = torch.randint(0, CONFIG["vocab_size"], (1, T), generator=torch.Generator().manual_seed(7))
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "idx.npy"), idx.numpy())
    for name, partitioner in (("gpt_portable", None), ("gpt_xnnpack", XnnpackPartitioner())):
        program = export(model, (idx,), partitioner=partitioner)
        program.save(os.path.join(out, name + ".pte"))
        if program.delegation is not None:
            print(program.delegation.format().split("\n\n")[0])
    return model, idx


def eager_ms(model, idx, runs: int) -> float:
    import torch
    torch.set_num_threads(1)
    times = []
    with torch.no_grad():
        model(idx)
        for _ in range(runs):
            start = time.perf_counter()
            model(idx)
            times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def build(target: str, program: str, libraries: str = "") -> str:
    scons("target=" + target, "programs=" + program,
          *(["libraries=" + libraries] if libraries else []), build_dir=BUILD)
    out = output_dir(programs=[program], build_dir=BUILD, target=target,
                     libraries=libraries.split(",") if libraries else ())
    return os.path.join(REPO, out, "bin", "runner")


def runner_ms(runner: str, program: str, idx: str, runs: int) -> float:
    return run_runner(runner, program, "--input", idx, repeat=runs)["median_ms"]


def library_sizes(runner: str) -> list:
    """(name, bytes) of each XNNPACK library the runner loads, as ldd resolves it."""
    ldd = subprocess.run(["ldd", runner], capture_output=True, text=True, check=True).stdout
    found = dict(re.findall(r"^\s*(\S+) => (\S+)", ldd, re.M))
    return [(name, os.path.getsize(os.path.realpath(found[name]))) for name in XNNPACK_LIBS
            if name in found]


# What --write puts above the table in BENCHMARKS.md.
INTRO = (
    "GPT (n_layer=4, n_head=4, n_embd=128, vocab=512, T=64, fp32, 1 thread) forward "
    "latency on this machine, and the runtime's size with the XNNPACK delegate. "
    "Command:\n\n    .venv/bin/python bench/xnnpack_latency.py --write\n\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    args = p.parse_args(argv)
    out = os.path.join(REPO, BUILD, "programs")
    model, idx = export_programs(out)
    rel = os.path.relpath(out, REPO)
    portable = build("host", rel + "/gpt_portable.pte", "portable,prim")
    optimized = build("host", rel + "/gpt_portable.pte")
    xnnpack = build("host-xnnpack", rel + "/gpt_xnnpack.pte")
    idx_path = os.path.join(out, "idx.npy")
    ms = {"portable": runner_ms(portable, os.path.join(out, "gpt_portable.pte"), idx_path,
                                max(5, args.runs // 10)),
          "optimized": runner_ms(optimized, os.path.join(out, "gpt_portable.pte"), idx_path,
                                 args.runs),
          "xnnpack": runner_ms(xnnpack, os.path.join(out, "gpt_xnnpack.pte"), idx_path, args.runs),
          "eager": eager_ms(model, idx, args.runs)}
    libs = library_sizes(xnnpack)

    rows = ["| engine | forward, ms (median) | time / eager's | ExecuTorch anchor, ms |",
            "| --- | ---: | ---: | ---: |"]
    labels = {"portable": "Tailor, portable kernels", "optimized": "Tailor, optimized kernels",
              "xnnpack": "Tailor, XNNPACK delegate", "eager": "torch eager (1 thread)"}
    for key in ("portable", "optimized", "xnnpack", "eager"):
        rows.append(f"| {labels[key]} | {ms[key]:.2f} | {ms[key] / ms['eager']:.2f}x | "
                    f"{ANCHORS[key]} |")
    size_rows = ["| binary | bytes (stripped) |", "| --- | ---: |",
                 f"| runner, portable (host, libraries=portable,prim) | {stripped_size(portable):,} |",
                 f"| runner, optimized (host) | {stripped_size(optimized):,} |",
                 f"| runner, XNNPACK delegate (host-xnnpack) | {stripped_size(xnnpack):,} |"]
    size_rows += [f"| {name} (shared, loaded at run time) | {size:,} |" for name, size in libs]
    size_rows.append(f"| XNNPACK libraries together | {sum(s for _, s in libs):,} |")
    text = ("\n".join(rows) + "\n\n" + "\n".join(size_rows) + "\n")
    return benchmarks_md.publish("XNNPACK", INTRO, text, args.write)


if __name__ == "__main__":
    sys.exit(main())
