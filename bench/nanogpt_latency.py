"""nanoGPT latency: Tailor's runtime against torch eager on the same weights.

    .venv/bin/python bench/nanogpt_latency.py [--repeat 20] [--tokens 128] [--markdown]

Builds `scons model=nanogpt_nocache` (build/host/nanogpt_nocache/: the demo GPT without its
KV cache, as this benchmark was first run; bench/generation.py measures the cache; the
host target's kernels, optimized ahead of portable) and the same with `libraries=portable,prim` (the portable kernels
alone: the runtime before kernels/optimized/), then measures, in one run: forward
latency at T = 1, 16, 64 (median and min of --repeat runs after warm-up) and tokens/s of
greedy generation of --tokens tokens from the same prompt (sliding window, as the app
does), for each runtime (`llm --bench` and `llm --greedy`; the optimized one also
with `--threads 2`) and for torch eager with 1 thread and with torch's default thread
count; then each runtime's time as a multiple of eager's (1 thread).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

import torch  # noqa: E402

from bench.common import scons  # noqa: E402
from codegen.build_layout import output_dir  # noqa: E402
from examples.nanogpt.bpe import Tokenizer  # noqa: E402
from examples.nanogpt.trained import MERGES, VOCAB, load_trained  # noqa: E402

LENGTHS = (1, 16, 64)
PROMPT = "And God said"
OUT = os.path.join(REPO, output_dir(["nanogpt_nocache"]))


def build(libraries: str = "") -> tuple[str, str]:
    """The llm app and program of `scons model=nanogpt_nocache [libraries=...]`."""
    scons("model=nanogpt_nocache", *([f"libraries={libraries}"] if libraries else []))
    out = os.path.join(REPO, output_dir(["nanogpt_nocache"],
                                        libraries=libraries.split(",") if libraries else ()))
    return os.path.join(out, "bin", "llm"), os.path.join(OUT, "nanogpt_nocache.pte")


def runtime_forward(app: str, pte: str, repeat: int, threads: int = 1) -> dict[int, tuple]:
    """T -> (median, min) ms."""
    out = subprocess.run([app, pte, "--bench", ",".join(map(str, LENGTHS)), "--repeat",
                          str(repeat), "--threads", str(threads)],
                         check=True, capture_output=True, text=True).stdout
    return {int(t): (float(median), float(low)) for t, median, low in
            re.findall(r"T=(\d+): median ([\d.]+) ms, min ([\d.]+) ms", out)}


def runtime_generate(app: str, pte: str, tokens: int, threads: int = 1) -> float:
    proc = subprocess.run([app, pte, "--tokenizer", VOCAB, "--prompt", PROMPT,
                           "--greedy", "--max-tokens", str(tokens), "--threads", str(threads)],
                          check=True, capture_output=True, text=True)
    generated, rate = re.search(r"generated (\d+) tokens in [\d.]+ s: ([\d.]+) tokens/s",
                                proc.stderr).groups()
    if int(generated) != tokens:
        raise SystemExit(f"the app stopped after {generated} of {tokens} tokens")
    return float(rate)


@torch.no_grad()
def torch_forward(model, repeat: int) -> dict[int, tuple]:
    result = {}
    for t in LENGTHS:
        idx = (torch.arange(t) % model.config.vocab_size).unsqueeze(0)
        times = []
        for i in range(repeat + 2):
            start = time.perf_counter()
            model(idx)
            if i >= 2:
                times.append((time.perf_counter() - start) * 1e3)
        result[t] = (statistics.median(times), min(times))
    return result


@torch.no_grad()
def torch_generate(model, prompt: list[int], tokens: int) -> float:
    seq = list(prompt)
    start = time.perf_counter()
    for _ in range(tokens):
        window = torch.tensor([seq[-model.config.block_size:]])
        seq.append(int(model(window)[0, -1].argmax()))
    return tokens / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)

    app, pte = build()
    portable_app, _ = build("portable,prim")
    model = load_trained()
    prompt = Tokenizer(VOCAB, MERGES).encode(PROMPT)
    default_threads = torch.get_num_threads()
    rows = [("Tailor, portable kernels (1 thread)", runtime_forward(portable_app, pte, args.repeat),
             runtime_generate(portable_app, pte, args.tokens)),
            ("Tailor, optimized kernels (1 thread)", runtime_forward(app, pte, args.repeat),
             runtime_generate(app, pte, args.tokens)),
            ("Tailor, optimized kernels (2 threads)", runtime_forward(app, pte, args.repeat, 2),
             runtime_generate(app, pte, args.tokens, 2))]
    for threads in (1, default_threads):
        torch.set_num_threads(threads)
        rows.append((f"torch eager ({threads} thread{'s' if threads > 1 else ''})",
                     torch_forward(model, args.repeat), torch_generate(model, prompt, args.tokens)))
    torch.set_num_threads(default_threads)
    eager = rows[3]
    # Each runtime's time against eager's on 1 thread: medians, and minimums (on a busy
    # machine the minimums are the steadier pair).
    ratios = [(f"{name}: time / eager's", {t: (f[t][0] / eager[1][t][0], f[t][1] / eager[1][t][1])
                                            for t in LENGTHS}, eager[2] / rate)
              for name, f, rate in rows[:3]]

    header = ["", *(f"forward T={t}, ms (median / min)" for t in LENGTHS),
              f"greedy, {args.tokens} tokens (tokens/s)"]
    table = [header] + [[name, *(" / ".join(f"{v:.3f}" for v in f[t]) for t in LENGTHS),
                         f"{rate:.1f}"] for name, f, rate in rows]
    table += [[name, *(" / ".join(f"{v:.2f}x" for v in f[t]) for t in LENGTHS), f"{rate:.2f}x"]
              for name, f, rate in ratios]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in table[1:]:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        for row in table:
            print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                            for i, (cell, w) in enumerate(zip(row, widths))))
    print(f"\nmodel: {model.config.n_layer} layers, {model.config.n_head} heads, "
          f"{model.config.n_embd} wide, vocab {model.config.vocab_size}, block "
          f"{model.config.block_size}; torch {torch.__version__}; {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
