"""Trains the demo GPT and its BPE vocabulary -> examples/nanogpt/weights/.

    nice python -m examples.nanogpt.train [--corpus FILE.txt] [--steps N] [--threads N]

Corpus: by default the King James Bible (1611; public domain), as printed by the `bible`
program of Debian's bible-kjv package (`apt-get install bible-kjv`): one verse per line,
verse numbers dropped, chapters separated by <|endoftext|>. Any UTF-8 text file can be
used instead with --corpus (paragraphs separated by blank lines become documents).

Writes vocab.json and merges.txt (examples/nanogpt/bpe.py), model.pt (checkpoint.py's
format) and training.json (corpus hash, settings, losses). Deterministic for a given
corpus, torch version and thread count: every random draw is seeded.
"""

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import time

import torch
from torch.nn import functional as F

from examples.nanogpt.bpe import END_OF_TEXT, Tokenizer, train_bpe, write_files
from examples.nanogpt.checkpoint import save_checkpoint
from examples.nanogpt.model import GPT, GPTConfig

WEIGHTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights")
CONFIG = GPTConfig(n_layer=4, n_head=4, n_embd=128, vocab_size=512, block_size=64)
KJV_COMMAND = ["bible", "-l100000", "gen1:1-rev22:21"]


def kjv_documents() -> list[str]:
    """The chapters of the KJV, each one verse per line."""
    if shutil.which(KJV_COMMAND[0]) is None:
        sys.exit("error: the default corpus needs the `bible` program: apt-get install "
                 "bible-kjv (or pass --corpus FILE.txt)")
    text = subprocess.run(KJV_COMMAND, capture_output=True, text=True, check=True).stdout
    chapters, verses = [], []
    for line in text.splitlines():
        if line.startswith("  "):                 # "  12 And God said, ..."
            verses.append(line.strip().split(" ", 1)[1])
        elif line.strip() and verses:             # "Genesis 2": a new chapter
            chapters.append("\n".join(verses) + "\n")
            verses = []
    chapters.append("\n".join(verses) + "\n")
    return chapters


def file_documents(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [p.strip() + "\n" for p in f.read().split("\n\n") if p.strip()]


def encode_corpus(tok: Tokenizer, documents: list[str]) -> torch.Tensor:
    ids = []
    for doc in documents:
        ids.extend(tok.encode(doc))
        ids.append(tok.end_of_text)
    return torch.tensor(ids, dtype=torch.long)


def batches(data: torch.Tensor, batch: int, block: int, gen: torch.Generator):
    while True:
        starts = torch.randint(0, len(data) - block - 1, (batch,), generator=gen)
        x = torch.stack([data[s:s + block] for s in starts])
        y = torch.stack([data[s + 1:s + block + 1] for s in starts])
        yield x, y


@torch.no_grad()
def evaluate(model: GPT, data: torch.Tensor, block: int, n: int = 64) -> float:
    model.eval()
    starts = torch.linspace(0, len(data) - block - 2, n).long()
    x = torch.stack([data[s:s + block] for s in starts])
    y = torch.stack([data[s + 1:s + block + 1] for s in starts])
    loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten()).item()
    model.train()
    return loss


def learning_rate(step: int, steps: int, peak: float, warmup: int) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train(documents: list[str], corpus_name: str, out_dir: str, steps: int, batch: int,
          peak_lr: float, seed: int, threads: int) -> dict:
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    started = time.time()
    os.makedirs(out_dir, exist_ok=True)

    # Vocabulary: 256 bytes + merges + <|endoftext|> = CONFIG.vocab_size ids.
    merges = train_bpe("".join(documents), CONFIG.vocab_size)
    vocab_path, merges_path = os.path.join(out_dir, "vocab.json"), os.path.join(out_dir, "merges.txt")
    write_files(merges, vocab_path, merges_path)
    tok = Tokenizer(vocab_path, merges_path)
    config = GPTConfig(**{**CONFIG.__dict__, "vocab_size": tok.vocab_size})
    data = encode_corpus(tok, documents)
    split = int(len(data) * 0.95)
    train_data, val_data = data[:split], data[split:]
    print(f"corpus {corpus_name}: {sum(map(len, documents)):,} chars -> {len(data):,} tokens "
          f"({tok.vocab_size} ids); BPE took {time.time() - started:.0f} s", flush=True)

    model = GPT(config)
    model.train()
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=peak_lr, betas=(0.9, 0.95))
    stream = batches(train_data, batch, config.block_size, torch.Generator().manual_seed(seed))
    loss = float("nan")
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, steps, peak_lr, warmup=max(1, steps // 20))
        x, y = next(stream)
        loss_t = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        optimizer.zero_grad(set_to_none=True)
        loss_t.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        loss = loss_t.item()
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step:5d}  loss {loss:.3f}  {time.time() - started:.0f} s", flush=True)
    model.eval()
    val_loss = evaluate(model, val_data, config.block_size)
    save_checkpoint(model, os.path.join(out_dir, "model.pt"))
    report = {
        "corpus": corpus_name,
        "corpus_sha256": hashlib.sha256("".join(documents).encode("utf-8")).hexdigest(),
        "tokens": len(data), "config": config.__dict__, "steps": steps, "batch": batch,
        "peak_lr": peak_lr, "seed": seed, "threads": threads, "torch": torch.__version__,
        "final_train_loss": round(loss, 4), "val_loss": round(val_loss, 4),
        "seconds": round(time.time() - started),
    }
    with open(os.path.join(out_dir, "training.json"), "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.nanogpt.train",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", help="a UTF-8 text file (default: the KJV via `bible`)")
    parser.add_argument("--out-dir", default=WEIGHTS_DIR)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--seed", type=int, default=1337)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.corpus:
        documents, name = file_documents(args.corpus), os.path.basename(args.corpus)
    else:
        documents, name = kjv_documents(), "King James Bible (Debian bible-kjv-text)"
    report = train(documents, name, args.out_dir, args.steps, args.batch, args.lr, args.seed,
                   args.threads)
    print(f"wrote {args.out_dir}: train loss {report['final_train_loss']}, "
          f"val loss {report['val_loss']}, {report['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
