"""Hugging Face LLM checkpoints through `llm:`: prefill and decode tokens/s of the llm
app against transformers' own generate with its static cache, one thread each.

    .venv/bin/python bench/llm_generation.py [--repeat 3] [--markdown] [--models tiny,135M]

Two Llama-architecture checkpoints with seeded random weights, saved with
save_pretrained into build/bench-llm/ (nothing is downloaded):

- tiny: the tests' shape (2 layers, 64 wide, vocab 320);
- 135M: SmolLM-135M's published shape (30 layers, 576 wide, 9 query and 3 key/value
  heads, MLP 1536, vocab 49152, tied embeddings): 135M parameters, 540 MB in fp32;
- 0.5B and 1B: Qwen2.5-0.5B's and Llama-3.2-1B's shapes, for bench/llm_versus_llamacpp.py
  (not in the default --models).

Each is built with `scons model=<its manifest>` (max_seq_len 256) and timed generating
DECODE greedy tokens after a PROMPT-token prompt (the same ids for both):
- Tailor: the llm app's stats line (prefill tokens/s of the prompt call, decode tokens/s
  of the steps after the first token);
- transformers: generate(do_sample=False, cache_implementation="static"); prefill is
  the time of generate with one new token, decode the time the DECODE - 1 more add.
The checkpoints have no eos id, so both generate every token. Figures are the fastest of
--repeat runs (this machine is shared; other work only ever adds time).
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
from codegen.build_layout import output_dir, outputs, tree  # noqa: E402
from tests.llm.checkpoints import load_transformers, save_checkpoint  # noqa: E402

BUILD = tree("bench-llm")
PROMPT, DECODE, MAX_SEQ_LEN = 64, 64, 256
NO_SPECIAL_IDS = dict(bos_token_id=None, eos_token_id=None, pad_token_id=None)
SHAPES = {
    "tiny": dict(NO_SPECIAL_IDS),
    "135M": dict(NO_SPECIAL_IDS, vocab_size=49152, hidden_size=576, intermediate_size=1536,
                 num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
                 max_position_embeddings=2048, tie_word_embeddings=True, rope_parameters={
                     "rope_type": "default", "rope_theta": 10000.0}),
    # Qwen2.5-0.5B's and Llama-3.2-1B's published shapes (bench/llm_versus_llamacpp.py).
    "0.5B": dict(NO_SPECIAL_IDS, vocab_size=151936, hidden_size=896, intermediate_size=4864,
                 num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
                 max_position_embeddings=32768, tie_word_embeddings=True,
                 use_sliding_window=False, rms_norm_eps=1e-6, rope_parameters={
                     "rope_type": "default", "rope_theta": 1000000.0}),
    "1B": dict(NO_SPECIAL_IDS, vocab_size=128256, hidden_size=2048, intermediate_size=8192,
               num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
               head_dim=64, max_position_embeddings=131072, tie_word_embeddings=True,
               rms_norm_eps=1e-5, rope_parameters={
                   "rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0,
                   "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 8192}),
}
ARCHITECTURE = {"0.5B": "qwen2"}  # tests/llm/checkpoints.py's name; the others are Llamas
MANIFEST = "description: {name}, random weights, for bench/llm_*.py\n" \
           "llm: {{checkpoint: {checkpoint}, max_seq_len: {max_seq_len}}}\n"


def prepare(name: str, quantize: str | None = None) -> tuple[str, str]:
    """(checkpoint directory, manifest path) of model `name`, written once; the manifest
    quantizes with `quantize` (a scheme name) when given."""
    checkpoint = os.path.join(REPO, BUILD, "llm_" + name.lower())
    manifest = checkpoint + (f"_{quantize}" if quantize else "") + ".yaml"
    if not os.path.isfile(os.path.join(checkpoint, "config.json")):
        print(f"saving the {name} checkpoint into {checkpoint}", file=sys.stderr)
        save_checkpoint(ARCHITECTURE.get(name, "llama"), checkpoint, **SHAPES[name])
    with open(manifest, "w") as f:
        f.write(MANIFEST.format(name=name, checkpoint=checkpoint, max_seq_len=MAX_SEQ_LEN))
        if quantize:
            f.write(f"quantize: {quantize}\n")
    return checkpoint, manifest


def build(manifest: str) -> tuple[str, str]:
    """(app, program) of the host build of `manifest`."""
    scons = os.path.join(os.path.dirname(sys.executable), "scons")
    subprocess.run([scons, "-Q", "-j2", f"model={manifest}"], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL)
    stem = os.path.splitext(os.path.basename(manifest))[0]
    made = outputs(os.path.join(REPO, output_dir([stem])))
    return made.apps[stem], made.programs[stem]


def tailor_rates(app: str, program: str, prompt: list[int], repeat: int, threads: int = 1,
                 new_tokens: int = DECODE) -> tuple[float, float]:
    """(prefill tokens/s, decode tokens/s): the fastest of `repeat` runs of the app
    generating `new_tokens` greedy tokens on `threads` threads."""
    best = (0.0, 0.0)
    for _ in range(repeat):
        proc = subprocess.run([app, program, "--prompt-ids", " ".join(map(str, prompt)),
                               "--max-tokens", str(new_tokens), "--greedy", "--threads",
                               str(threads)],
                              capture_output=True, text=True, check=True)
        prefill = re.search(r"prefill \d+ tokens at ([\d.]+) tokens/s", proc.stderr)
        decode = re.search(r"decode \d+ tokens at ([\d.]+) tokens/s", proc.stderr)
        if not (prefill and decode):
            sys.exit("no stats line in the app's output:\n" + proc.stderr)
        best = (max(best[0], float(prefill.group(1))), max(best[1], float(decode.group(1))))
    return best


def transformers_rates(checkpoint: str, prompt: list[int], repeat: int) -> tuple[float, float]:
    model = load_transformers(checkpoint)
    ids = torch.tensor([prompt])

    def seconds(new_tokens: int) -> float:
        start = time.perf_counter()
        with torch.no_grad():
            model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                           max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                           cache_implementation="static")
        return time.perf_counter() - start

    seconds(2)  # warm-up
    first = min(seconds(1) for _ in range(repeat))
    whole = min(seconds(DECODE) for _ in range(repeat))
    return PROMPT / first, (DECODE - 1) / max(whole - first, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--models", default="tiny,135M")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    for name in args.models.split(","):
        checkpoint, manifest = prepare(name)
        app, program = build(manifest)
        vocab = SHAPES[name].get("vocab_size", 320)
        prompt = torch.randint(0, vocab, (PROMPT,), generator=torch.Generator().manual_seed(0))
        prompt = prompt.tolist()
        tailor = tailor_rates(app, program, prompt, args.repeat)
        reference = transformers_rates(checkpoint, prompt, args.repeat)
        params = sum(p.numel() for p in load_transformers(checkpoint).parameters())
        rows.append([name, f"{params / 1e6:.1f}M", f"{tailor[0]:.0f}", f"{reference[0]:.0f}",
                     f"{tailor[0] / reference[0]:.2f}x", f"{tailor[1]:.1f}",
                     f"{reference[1]:.1f}", f"{tailor[1] / reference[1]:.2f}x"])
    print_table(["model", "params", f"prefill {PROMPT} tok/s Tailor", "transformers",
                 "speed-up", "decode tok/s Tailor", "transformers", "speed-up"], rows,
                args.markdown)


if __name__ == "__main__":
    main()
