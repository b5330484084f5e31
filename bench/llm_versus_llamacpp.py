"""Tailor's llm app beside llama.cpp on the same random weights: prefill and decode
tokens/s of 4- and 8-bit programs, next to the limit one core's read bandwidth sets.

    .venv/bin/pip install -r bench/requirements-llamacpp.txt      # once: builds llama.cpp
    .venv/bin/python bench/llm_versus_llamacpp.py [--shapes 135M,0.5B,1B] [--threads 1,2]
        [--pairs 4bit,8bit] [--repeat 3] [--decode 64] [--skip-check] [--markdown]

For each shape (bench/llm_generation.py's checkpoints: SmolLM-135M's, Qwen2.5-0.5B's and
Llama-3.2-1B's published shapes with seeded random weights, saved with save_pretrained
into build/bench-llm/; nothing is downloaded):
- Tailor builds the checkpoint through `llm:` (max_seq_len 256) with `quantize: 8da4w`
  and `8da8w` (and without, for the fp32 pair);
- the same weights are written as a float32 GGUF (bench/gguf_checkpoint.py) and quantized
  to Q4_0 and Q8_0 by llama.cpp's own quantizer (its default type per tensor, as
  llama-quantize gives users); pairs: 4bit = 8da4w | Q4_0, 8bit = 8da8w | Q8_0,
  fp32 = fp32 | F32;
- check (unless --skip-check): llama.cpp on the F32 file, with a float32 KV cache, gives
  transformers' greedy ids for a 16-id prompt and its last logits within 1e-3 of the
  largest; a mismatch stops the benchmark (the GGUF would not be the same model);
- both generate DECODE greedy tokens after the same PROMPT (120) random ids, each in its
  own process, on 1 and 2 threads: Tailor's llm app (its stats line), llama.cpp through
  llama-cpp-python (bench/llamacpp_runner.py, timed the same way). Figures are the
  fastest of --repeat runs.
The limit is tokens/s <= read bandwidth / bytes of weights read per token, the
bandwidth measured in the same run (bench/read_bandwidth.cpp: a sum over 512 MB, best of
its passes, on as many threads as the row); the bytes are the program's constant segment
for Tailor, and for llama.cpp every tensor of the GGUF (all three shapes tie the
embedding to the output projection, which reads the whole table each token).
"""

import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

import torch  # noqa: E402

from bench.common import read_bandwidth  # noqa: E402
from bench.gguf_checkpoint import quantize_gguf, weights_read_per_token, write_gguf  # noqa: E402
from bench.llamacpp_runner import compare_with_transformers, run  # noqa: E402
from bench.llm_generation import BUILD, SHAPES, build, prepare, tailor_rates  # noqa: E402
from bench.tables import print_table  # noqa: E402
from program.pte import read_header  # noqa: E402

PROMPT, DECODE = 120, 64
# name -> (Tailor's quantize scheme or None, llama.cpp's GGUF type)
PAIRS = {"4bit": ("8da4w", "Q4_0"), "8bit": ("8da8w", "Q8_0"), "fp32": (None, "F32")}
CHECK_PROMPT, CHECK_TOKENS, CHECK_ATOL = 16, 8, 1e-3
BANDWIDTH_MB = 512


def gguf_files(checkpoint: str, kinds: list[str]) -> dict[str, str]:
    """kind (F32, Q4_0, Q8_0) -> the checkpoint's GGUF file, written when missing or older
    than the checkpoint."""
    stamp = os.path.getmtime(os.path.join(checkpoint, "model.safetensors"))
    files = {}
    for kind in ["F32"] + [k for k in kinds if k != "F32"]:
        path = f"{checkpoint}-{kind.lower()}.gguf"
        if not os.path.isfile(path) or os.path.getmtime(path) < stamp:
            print(f"writing {path}", file=sys.stderr)
            if kind == "F32":
                write_gguf(checkpoint, path)
            else:
                quantize_gguf(files["F32"], path, kind)
        files[kind] = path
    return files


def check_gguf(name: str, checkpoint: str, f32: str) -> str:
    """llama.cpp on the F32 GGUF against transformers on the checkpoint: exits on a
    mismatch, else returns a one-line summary."""
    vocab = SHAPES[name]["vocab_size"]
    prompt = [(i * 7919 + 13) % vocab for i in range(CHECK_PROMPT)]
    c = compare_with_transformers(checkpoint, f32, prompt, CHECK_TOKENS)
    if c["ids"] != c["expected"] or c["diff"] > CHECK_ATOL * c["scale"]:
        sys.exit(f"GGUF check failed for {name}: llama.cpp's greedy ids {c['ids']}, "
                 f"transformers' {c['expected']}; the last logits differ by up to "
                 f"{c['diff']:.3g} (largest {c['scale']:.3g})")
    return (f"{name}: llama.cpp on the F32 GGUF gives transformers' {CHECK_TOKENS} greedy "
            f"ids; its last logits differ by at most {c['diff']:.2g} (largest "
            f"{c['scale']:.3g})")


def read_bandwidth_by_threads(threads: list[int]) -> dict[int, float]:
    """threads -> GB/s over BANDWIDTH_MB (bench/common.read_bandwidth)."""
    return {t: read_bandwidth(t, BANDWIDTH_MB) for t in threads}


def constant_bytes(program: str) -> int:
    """The constant segment of a Tailor program: its weights (and the caches' zeros)."""
    with open(program, "rb") as f:
        return read_header(f.read(64), os.path.getsize(program))[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default="135M,0.5B,1B",
                        help="of 135M, 0.5B, 1B (any case)")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--pairs", default="4bit,8bit", help="of " + ", ".join(PAIRS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--decode", type=int, default=DECODE)
    parser.add_argument("--skip-check", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    names = {n.lower(): n for n in SHAPES if n != "tiny"}
    shapes = [names.get(s.strip().lower()) for s in args.shapes.split(",")]
    pairs = [p.strip() for p in args.pairs.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    if None in shapes or any(p not in PAIRS for p in pairs) or min(threads) < 1:
        parser.error(f"--shapes takes {', '.join(names.values())}; --pairs "
                     f"{', '.join(PAIRS)}; --threads counts from 1")
    bandwidth = read_bandwidth_by_threads(threads)
    rows, checks = [], []
    for name in shapes:
        checkpoint, _ = prepare(name)
        ggufs = gguf_files(checkpoint, [PAIRS[p][1] for p in pairs])
        if not args.skip_check:
            checks.append(check_gguf(name, checkpoint, ggufs["F32"]))
            print(checks[-1], file=sys.stderr)
        programs = {p: build(prepare(name, PAIRS[p][0])[1]) for p in pairs}
        ids = torch.randint(0, SHAPES[name]["vocab_size"], (PROMPT,),
                            generator=torch.Generator().manual_seed(0)).tolist()
        for t in threads:
            for pair in pairs:
                scheme, kind = PAIRS[pair]
                app, program = programs[pair]
                ours = tailor_rates(app, program, ids, args.repeat, t, args.decode)
                theirs = run(ggufs[kind], ids, args.decode, t, args.repeat)
                for engine, read, (prefill, decode), ratios in (
                        (f"Tailor {scheme or 'fp32'}", constant_bytes(program), ours,
                         [f"{ours[0] / theirs['prefill']:.2f}x",
                          f"{ours[1] / theirs['decode']:.2f}x"]),
                        (f"llama.cpp {kind}", weights_read_per_token(ggufs[kind]),
                         (theirs["prefill"], theirs["decode"]), ["", ""])):
                    limit = bandwidth[t] * 1e9 / read
                    rows.append([name, str(t), engine, f"{read / 1e6:.1f}", f"{prefill:.0f}",
                                 f"{decode:.1f}", f"{limit:.0f}", f"{decode / limit:.2f}",
                                 *ratios])
                print(f"{name} {t} thread(s) {pair}: done", file=sys.stderr)
    print("read bandwidth: " + ", ".join(f"{t} thread{'s' if t > 1 else ''} {bw:.1f} GB/s"
                                         for t, bw in bandwidth.items()))
    for line in checks:
        print("GGUF check " + line)
    print_table(["shape", "threads", "engine", "MB read/token", f"prefill {PROMPT} tok/s",
                 "decode tok/s", "limit tok/s", "decode/limit", "prefill vs llama.cpp",
                 "decode vs llama.cpp"], rows, args.markdown)


if __name__ == "__main__":
    main()
