"""Size and resident memory of Hugging Face LLM programs: the llm app's peak resident
memory after loading a program and generating, next to the program's size and the
memory planned for its method, fp32 and quantized.

    .venv/bin/python bench/llm_memory.py [--markdown] [--models 135M] [--schemes fp32,8da4w]

The checkpoints and builds are bench/llm_generation.py's (random weights, max_seq_len
256; SmolLM-135M's shape: 540 MB of fp32 safetensors). For each program the app
generates DECODE greedy tokens after a PROMPT-token prompt with --memory, which prints
the process's VmHWM (/proc/self/status) and what is resident at the end: pages mapped
from the program file (its weights, read in place) and allocated ones (the KV cache,
the activations, the tokenizer). The bound the runtime keeps is

    peak resident <= 1.1 x (program + planned memory)

where planned memory is the method's arenas (KV cache and activations at their planned
upper bounds) and allocator, from its MethodMeta: the weights are mapped once, never
copied.
"""

import argparse
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench.llm_generation import DECODE, PROMPT, SHAPES, build, prepare  # noqa: E402
from bench.tables import print_table  # noqa: E402
from tests.llm.app import memory_figures  # noqa: E402



def memory(app: str, program: str, vocab: int) -> dict[str, float]:
    """The app's --memory figures (MB) after generating DECODE tokens."""
    prompt = " ".join(str(i * 7919 % vocab) for i in range(PROMPT))
    proc = subprocess.run([app, program, "--prompt-ids", prompt, "--max-tokens", str(DECODE),
                           "--greedy", "--memory"], capture_output=True, text=True, check=True)
    figures = memory_figures(proc.stderr)
    if figures is None:
        sys.exit("no memory line in the app's output:\n" + proc.stderr)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--models", default="135M")
    parser.add_argument("--schemes", default="fp32,8da4w")
    args = parser.parse_args()
    rows = []
    for name in args.models.split(","):
        for scheme in args.schemes.split(","):
            checkpoint, manifest = prepare(name, None if scheme == "fp32" else scheme)
            app, program = build(manifest)
            m = memory(app, program, SHAPES[name].get("vocab_size", 320))
            weights = os.path.getsize(os.path.join(checkpoint, "model.safetensors")) / 1e6
            bound = 1.1 * (m["program"] + m["planned"])
            rows.append([name, scheme, f"{weights:.1f}", f"{m['program']:.1f}",
                         f"{m['program'] / weights:.3f}x", f"{m['planned']:.1f}",
                         f"{m['peak']:.1f}", f"{m['mapped']:.1f}", f"{m['allocated']:.1f}",
                         f"{bound:.1f}", "yes" if m["peak"] <= bound else "NO"])
    print_table(["model", "weights", "safetensors MB", "program MB", "program/safetensors",
                 "planned MB", "peak RSS MB", "mapped MB", "allocated MB",
                 "1.1 x (program + planned)", "within"], rows, args.markdown)


if __name__ == "__main__":
    main()
