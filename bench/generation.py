"""Generation speed: decode tokens/s with and without the KV cache, against torch eager.

    .venv/bin/python bench/generation.py [--repeat 50] [--markdown]

Builds `scons model=gpt_kv,gpt_kv_nocache` (manifests/models/: the demo GPT's shape, 4
layers, 128 wide, vocab 512, at a 256-token context, the same seeded weights with and
without a static KV cache) and, on one thread, times:

- decode at contexts 64 and 256 (`nanogpt --decode-bench`): with the cache one token at
  position C-1 after C-1 cached; without, a forward pass over the C tokens;
- prefill of 64 and 256 tokens in one call (`nanogpt --bench`) on the cached program;
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

from bench.tables import print_table  # noqa: E402
from examples.nanogpt.kv_cache import make_cached_gpt  # noqa: E402

CONTEXTS = (64, 256)
OUT = os.path.join(REPO, "build", "host", "gpt_kv+gpt_kv_nocache")


def build() -> str:
    scons = os.path.join(os.path.dirname(sys.executable), "scons")
    subprocess.run([scons, "-j2", "model=gpt_kv,gpt_kv_nocache"], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(OUT, "bin", "nanogpt")


def runtime_ms(app: str, program: str, option: str, repeat: int) -> dict[int, float]:
    """Context (or T) -> the fastest run's ms of `nanogpt PROGRAM --decode-bench|--bench`."""
    out = subprocess.run([app, os.path.join(OUT, program), option,
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


def eager_ms(repeat: int) -> dict[str, dict[int, float]]:
    """torch eager: decode with its cache, decode without, prefill, per context."""
    cached, _ = make_cached_gpt(n_layer=4, n_head=4, n_embd=128, vocab_size=512,
                                block_size=256)
    gpt = cached.gpt
    found = {"cache": {}, "no cache": {}, "prefill": {}}
    with torch.no_grad():
        for c in CONTEXTS:
            tokens = torch.arange(c).remainder(512)[None, :]
            cached(tokens[:, :c - 1], torch.arange(c - 1))
            last, pos = tokens[:, c - 1:], torch.tensor([c - 1])
            found["cache"][c] = best_ms(lambda: cached(last, pos), repeat)
            found["no cache"][c] = best_ms(lambda: gpt(tokens), repeat)
            found["prefill"][c] = best_ms(lambda: cached(tokens, torch.arange(c)), repeat)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50, help="timed runs per figure")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)

    app = build()
    torch.set_num_threads(1)
    tailor = {"cache": runtime_ms(app, "gpt_kv.pte", "--decode-bench", args.repeat),
              "no cache": runtime_ms(app, "gpt_kv_nocache.pte", "--decode-bench", args.repeat),
              "prefill": runtime_ms(app, "gpt_kv.pte", "--bench", args.repeat)}
    eager = eager_ms(args.repeat)

    def rate(ms: float, tokens: int = 1) -> str:
        return f"{tokens * 1000 / ms:,.0f}"

    header = ["context", "Tailor, cache", "Tailor, no cache", "eager, cache", "eager, no cache",
              "cache / no cache", "Tailor / eager (cache)", "Tailor prefill", "eager prefill",
              "prefill / decode (per token)"]
    rows = []
    for c in CONTEXTS:
        t, e = tailor, eager
        prefill_per_token = t["prefill"][c] / c
        rows.append([str(c), rate(t["cache"][c]), rate(t["no cache"][c]), rate(e["cache"][c]),
                     rate(e["no cache"][c]), f"{t['no cache'][c] / t['cache'][c]:.1f}x",
                     f"{e['cache'][c] / t['cache'][c]:.1f}x", rate(t["prefill"][c], c),
                     rate(e["prefill"][c], c), f"{t['cache'][c] / prefill_per_token:.1f}x"])
    print_table(header, rows, args.markdown)
    print(f"\ntokens/s on 1 thread (decode: one token; prefill: the whole context in one "
          f"call); torch {torch.__version__}; {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
