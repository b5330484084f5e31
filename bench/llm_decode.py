"""LLM decode and prefill against the bandwidth limit: tokens/s of the llm app on a
SmolLM-135M-shaped checkpoint with `quantize: 8da4w`, next to what one core can read.

    .venv/bin/python bench/llm_decode.py [--rounds 5] [--markdown]

The checkpoint (random weights, bench/llm_generation.py's "135M") is built with
`scons model=<manifest>`; bench/read_bandwidth.cpp sums an array of the program's size on one
core. A decode step reads every weight once, so

    limit (tokens/s) = bytes a core sums per second / program bytes

Each round runs, back to back, the sum, `llm --decode-bench 64` (one decode step at
context 64) and `llm --bench 120` (a 120-token prompt in one call), on 1 and on 2
threads; the table keeps each figure's best round (other work on a shared machine only
ever adds time), and the ratios are of figures from the same run.
"""

import argparse
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench.common import read_bandwidth  # noqa: E402
from bench.llm_generation import build, prepare  # noqa: E402
from bench.tables import print_table  # noqa: E402

CONTEXT, PROMPT = 64, 120


def app_ms(app: str, program: str, flag: str, value: int, threads: int) -> float:
    """The min milliseconds of `llm --bench T` or `--decode-bench C`."""
    out = subprocess.run([app, program, flag, str(value), "--repeat", "30", "--threads",
                          str(threads)], capture_output=True, text=True, check=True)
    found = re.search(r"min ([\d.]+) ms", out.stdout + out.stderr)
    if not found:
        sys.exit(f"no timing in the output of {app} {flag}:\n{out.stdout}{out.stderr}")
    return float(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    _, manifest = prepare("135M", "8da4w")
    app, program = build(manifest)
    size = os.path.getsize(program)
    best_gbs = 0.0
    decode = {1: 1e30, 2: 1e30}
    prefill = {1: 1e30, 2: 1e30}
    for _ in range(args.rounds):
        best_gbs = max(best_gbs, read_bandwidth(1, max(1, size >> 20), 20))
        for threads in (1, 2):
            decode[threads] = min(decode[threads],
                                  app_ms(app, program, "--decode-bench", CONTEXT, threads))
            prefill[threads] = min(prefill[threads],
                                   app_ms(app, program, "--bench", PROMPT, threads))
    limit = best_gbs * 1e9 / size
    rows = []
    for threads in (1, 2):
        decode_rate = 1e3 / decode[threads]
        prefill_rate = PROMPT * 1e3 / prefill[threads]
        rows.append([str(threads), f"{decode_rate:.0f}", f"{decode_rate / limit:.2f}",
                     f"{prefill_rate:.0f}", f"{prefill_rate / decode_rate:.1f}x",
                     f"{decode[1] / decode[threads]:.2f}x"])
    print(f"program {size / 1e6:.1f} MB; one core sums {best_gbs:.1f} GB/s: limit "
          f"{limit:.0f} decode tokens/s")
    print_table(["threads", f"decode tok/s (context {CONTEXT})", "of the limit",
                 f"prefill tok/s ({PROMPT} tokens)", "prefill/decode per token",
                 "decode vs 1 thread"], rows, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
