"""Generation speed: decode tokens/s with and without the KV cache, against torch eager.

    .venv/bin/python bench/generation.py [--repeat 30] [--markdown] [--models demo,27M]

Two GPTs, each at a 256-token context, the same seeded weights with and without a static
KV cache:

- demo: the demo GPT's shape, 4 layers, 4 heads, 128 wide, vocab 512 (3.4 MB of weights:
  they stay in this core's caches), manifests/models/gpt_kv.yaml and gpt_kv_nocache.yaml;
- 27M: 8 layers, 8 heads, 512 wide, vocab 4096 (110 MB of weights: far past the caches,
  as the weights of every LLM that users ship), manifests this script writes into
  build/bench-generation/ from the same factories.

Each is built with `scons model=...` and, on one thread, timed doing:

- decode at contexts 64 and 256 (`llm --decode-bench`): with the cache one token at
  position C-1 after C-1 cached; without, a forward pass over the C tokens;
- prefill of 64 and 256 tokens in one call (`llm --bench`) on the cached program;
- torch eager on the same weights doing the same: examples/nanogpt/kv_cache.py's
  CachedGPT (its cache) and the plain GPT.

Figures are the fastest of --repeat runs after two warm-up runs (the machine these
figures come from is shared, and its other work only ever adds time); tokens/s =
1000 / ms (decode) or T * 1000 / ms (prefill).
"""

import argparse
import os
import re
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

import torch  # noqa: E402

from bench.common import scons  # noqa: E402
from codegen.build_layout import output_dir, tree  # noqa: E402
from bench.tables import print_table  # noqa: E402
from examples.nanogpt.kv_cache import make_cached_gpt  # noqa: E402

CONTEXTS = (64, 256)
BLOCK = 256
BUILD = tree("bench-generation")
# Each model: its shape (make_gpt's arguments) and its two manifests, the cached first.
MODELS = {
    "demo": ({"n_layer": 4, "n_head": 4, "n_embd": 128, "vocab_size": 512},
             ["manifests/models/gpt_kv.yaml", "manifests/models/gpt_kv_nocache.yaml"]),
    "27M": ({"n_layer": 8, "n_head": 8, "n_embd": 512, "vocab_size": 4096},
            [f"{BUILD}/gpt_kv_27m.yaml", f"{BUILD}/gpt_kv_27m_nocache.yaml"]),
}
# The 27M GPT's manifests: gpt_kv.yaml's and gpt_kv_nocache.yaml's at its shape.
CACHED_MANIFEST = """\
description: a GPT of 27M parameters at a 256-token context with a static KV cache, for bench/generation.py
factory: examples.nanogpt.kv_cache:make_cached_gpt
factory_args: {args}
dynamic_dims:
  - {{input: 0, dim: 1, name: T, min: 1, max: {block}}}
  - {{input: 1, dim: 0, name: T, min: 1, max: {block}}}
kernel_libraries: [kernels/llm/llm_optimized.yaml, kernels/llm/llm_portable.yaml]
tolerance: {{atol: 1.0e-3, rtol: 1.0e-3}}
constant_methods: {{get_max_seq_len: {block}, get_vocab_size: {vocab}, get_bos_id: {eos}, get_eos_ids: [{eos}]}}
app: {{name: llm, sources: [apps/llm/*.cpp, apps/llm/tokenizer/*.cpp]}}
"""
NOCACHE_MANIFEST = """\
description: gpt_kv_27m.yaml without the KV cache, for bench/generation.py
factory: examples.nanogpt.model:make_gpt
factory_args: {args}
dynamic_dims:
  - {{input: 0, dim: 1, name: T, min: 1, max: {block}}}
tolerance: {{atol: 1.0e-3, rtol: 1.0e-3}}
app: {{name: llm, sources: [apps/llm/*.cpp, apps/llm/tokenizer/*.cpp]}}
"""


def write_manifests(shape: dict, paths: list[str]) -> None:
    """The manifests of a shape that manifests/models/ does not hold (flow-style YAML)."""
    args = "{" + ", ".join(f"{k}: {v}" for k, v in {**shape, "block_size": BLOCK}.items()) + "}"
    for template, path in zip((CACHED_MANIFEST, NOCACHE_MANIFEST), paths):
        text = template.format(args=args, block=BLOCK, vocab=shape["vocab_size"],
                               eos=shape["vocab_size"] - 1)
        full = os.path.join(REPO, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if not os.path.exists(full) or open(full).read() != text:
            with open(full, "w") as f:
                f.write(text)


def build(manifests: list[str]) -> tuple[str, str]:
    """(the llm app, the folder of its programs) of one runtime for `manifests`."""
    scons("model=" + ",".join(manifests), build_dir=BUILD)
    names = [os.path.splitext(os.path.basename(m))[0] for m in manifests]
    out = os.path.join(REPO, output_dir(names, build_dir=BUILD))
    return os.path.join(out, "bin", "llm"), out


def runtime_ms(app: str, program: str, option: str, repeat: int) -> dict[int, float]:
    """Context (or T) -> the fastest run's ms of `llm PROGRAM --decode-bench|--bench`."""
    out = subprocess.run([app, program, option,
                          ",".join(map(str, CONTEXTS)), "--repeat", str(repeat)],
                         check=True, capture_output=True, text=True).stdout
    return {int(c): float(ms) for c, ms in re.findall(r"=(\d+): median [\d.]+ ms, min ([\d.]+)",
                                                        out)}


def best_ms(fn, repeat: int) -> float:
    times = []
    for i in range(repeat + 2):
        start = time.perf_counter()
        fn()
        if i >= 2:
            times.append((time.perf_counter() - start) * 1e3)
    return min(times)


def eager_ms(shape: dict, repeat: int) -> dict[str, dict[int, float]]:
    """torch eager: decode with its cache, decode without, prefill, per context."""
    cached, _ = make_cached_gpt(**shape, block_size=BLOCK)
    gpt = cached.gpt
    vocab = shape["vocab_size"]
    found = {"cache": {}, "no cache": {}, "prefill": {}}
    with torch.no_grad():
        for c in CONTEXTS:
            tokens = torch.arange(c).remainder(vocab)[None, :]
            cached(tokens[:, :c - 1], torch.arange(c - 1))
            last, pos = tokens[:, c - 1:], torch.tensor([c - 1])
            found["cache"][c] = best_ms(lambda: cached(last, pos), repeat)
            found["no cache"][c] = best_ms(lambda: gpt(tokens), repeat)
            found["prefill"][c] = best_ms(lambda: cached(tokens, torch.arange(c)), repeat)
    return found


def measure(shape: dict, manifests: list[str], repeat: int):
    """(Tailor's figures, eager's) of one model: see eager_ms."""
    app, out = build(manifests)
    cached, nocache = (os.path.join(out, os.path.splitext(os.path.basename(m))[0] + ".pte")
                       for m in manifests)
    tailor = {"cache": runtime_ms(app, cached, "--decode-bench", repeat),
              "no cache": runtime_ms(app, nocache, "--decode-bench", repeat),
              "prefill": runtime_ms(app, cached, "--bench", repeat)}
    return tailor, eager_ms(shape, repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per figure")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated, of: " + ", ".join(MODELS))
    args = parser.parse_args(argv)
    chosen = args.models.split(",")
    unknown = sorted(set(chosen) - set(MODELS))
    if unknown:
        parser.error(f"--models: unknown {', '.join(unknown)}; choose from {', '.join(MODELS)}")

    torch.set_num_threads(1)

    def rate(ms: float, tokens: int = 1) -> str:
        return f"{tokens * 1000 / ms:,.0f}"

    header = ["model", "context", "Tailor, cache", "Tailor, no cache", "eager, cache",
              "eager, no cache", "cache / no cache", "Tailor / eager (cache)", "Tailor prefill",
              "eager prefill", "prefill / decode (per token)"]
    rows = []
    for name in chosen:
        shape, manifests = MODELS[name]
        if name != "demo":
            write_manifests(shape, manifests)
        t, e = measure(shape, manifests, args.repeat)
        for c in CONTEXTS:
            prefill_per_token = t["prefill"][c] / c
            rows.append([name, str(c), rate(t["cache"][c]), rate(t["no cache"][c]),
                         rate(e["cache"][c]), rate(e["no cache"][c]),
                         f"{t['no cache'][c] / t['cache'][c]:.1f}x",
                         f"{e['cache'][c] / t['cache'][c]:.1f}x", rate(t["prefill"][c], c),
                         rate(e["prefill"][c], c), f"{t['cache'][c] / prefill_per_token:.1f}x"])
    print_table(header, rows, args.markdown)
    print(f"\ntokens/s on 1 thread (decode: one token; prefill: the whole context in one "
          f"call); torch {torch.__version__}; {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
