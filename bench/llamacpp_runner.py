"""llama.cpp (through llama-cpp-python) on one GGUF file: greedy generation after a prompt
of token ids, timed as Tailor's llm app times itself; run in its own process by
bench/llm_versus_llamacpp.py, as the llm app is, and prints one JSON line.

    .venv/bin/python bench/llamacpp_runner.py MODEL.gguf --prompt-ids "1 2 3" \
        [--decode 64] [--threads 1] [--repeat 3] [--f32-cache] [--logits]

Each run clears the cache, evaluates the prompt in one batch (prefill: prompt tokens /
seconds of that call) and takes the argmax of its last logits, then evaluates each new
token alone and takes its argmax (decode: the DECODE - 1 steps after the first token /
their seconds), as the app's stats line counts. Figures are the fastest of --repeat runs
after one warm-up. The JSON holds "prefill" and "decode" (tokens/s), "ids" (the greedy
ids) and with --logits "logits" (the prompt's last logits, for checks). --f32-cache keeps
the KV cache in float32 instead of llama.cpp's float16, for checks against float32.

From Python: run(gguf, prompt, ...) runs it and returns the JSON; compare_with_transformers
checks a float32 GGUF against transformers on the checkpoint it was written from.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(gguf: str, prompt: list[int], decode: int, threads: int = 1, repeat: int = 3,
        *flags: str) -> dict:
    """This script's JSON for `gguf`, run in a process of its own; RuntimeError with
    llama.cpp's messages when it fails."""
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), gguf, "--prompt-ids",
                           " ".join(map(str, prompt)), "--decode", str(decode), "--threads",
                           str(threads), "--repeat", str(repeat), *flags],
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"llama.cpp failed on {gguf}:\n{proc.stderr}")
    return json.loads(proc.stdout.splitlines()[-1])


def compare_with_transformers(checkpoint: str, gguf: str, prompt: list[int],
                              new_tokens: int) -> dict:
    """llama.cpp on the float32 `gguf` (float32 cache) beside transformers on `checkpoint`:
    {"ids": llama.cpp's greedy ids, "expected": transformers', "diff": the largest
    difference of the prompt's last logits, "scale": the largest of transformers' logits}."""
    import torch
    sys.path.insert(0, REPO)
    from tests.llm.checkpoints import greedy, load_transformers
    model = load_transformers(checkpoint)
    expected = greedy(model, prompt, new_tokens)
    with torch.no_grad():
        logits = model(torch.tensor([prompt])).logits[0, -1]
    got = run(gguf, prompt, new_tokens, 1, 0, "--f32-cache", "--logits")
    return {"ids": got["ids"], "expected": expected,
            "diff": (torch.tensor(got["logits"]) - logits).abs().max().item(),
            "scale": logits.abs().max().item()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gguf")
    parser.add_argument("--prompt-ids", required=True)
    parser.add_argument("--decode", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--f32-cache", action="store_true")
    parser.add_argument("--logits", action="store_true")
    args = parser.parse_args()
    import llama_cpp
    prompt = [int(i) for i in args.prompt_ids.split()]
    cache = dict(type_k=llama_cpp.GGML_TYPE_F32, type_v=llama_cpp.GGML_TYPE_F32) \
        if args.f32_cache else {}
    llm = llama_cpp.Llama(model_path=args.gguf, n_ctx=len(prompt) + args.decode,
                          n_batch=max(len(prompt), 512), n_ubatch=max(len(prompt), 512),
                          n_threads=args.threads, n_threads_batch=args.threads,
                          verbose=False, **cache)
    vocab = llm.n_vocab()

    def last_logits() -> np.ndarray:
        return np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(vocab,))

    def generate() -> tuple[float, float, list[int], np.ndarray]:
        llm.reset()
        start = time.perf_counter()
        llm.eval(prompt)
        logits = last_logits().copy()  # a view of llama.cpp's buffer, which the next
        ids = [int(logits.argmax())]     # eval overwrites
        prefill = time.perf_counter() - start
        start = time.perf_counter()
        for _ in range(args.decode - 1):
            llm.eval([ids[-1]])
            ids.append(int(last_logits().argmax()))
        decode = time.perf_counter() - start
        return prefill, decode, ids, logits

    _, _, ids, logits = generate()  # warm-up (graphs, buffers, page cache); the ids
    prefill = decode = float("inf")
    for _ in range(max(args.repeat, 1)):
        p, d, _, _ = generate()
        prefill, decode = min(prefill, p), min(decode, d)
    result = {"prefill": len(prompt) / prefill, "ids": ids,
              "decode": (args.decode - 1) / decode if args.decode > 1 else 0.0}
    if args.logits:
        result["logits"] = logits.tolist()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
