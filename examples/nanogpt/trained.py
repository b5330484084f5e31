"""The demo GPT with the weights examples/nanogpt/train.py wrote to weights/.

manifests/models/nanogpt.yaml names make_nanogpt_cached as its factory (with a KV cache),
nanogpt_nocache.yaml make_nanogpt; the llm app reads VOCAB (MERGES beside it).
"""

import os

import torch

from examples.nanogpt.checkpoint import load_checkpoint
from examples.nanogpt.kv_cache import cached_example
from examples.nanogpt.model import GPT

WEIGHTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights")
MODEL = os.path.join(WEIGHTS_DIR, "model.pt")
VOCAB = os.path.join(WEIGHTS_DIR, "vocab.json")
MERGES = os.path.join(WEIGHTS_DIR, "merges.txt")


def load_trained(path: str = MODEL) -> GPT:
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no trained weights; run "
                                "`python -m examples.nanogpt.train` to make them")
    return load_checkpoint(path)


def make_nanogpt(example_length: int = 16):
    """The trained GPT and a seeded example batch of token ids; the export keeps T
    dynamic, so the example length is only a sample inside 1..block_size."""
    model = load_trained()
    idx = torch.randint(0, model.config.vocab_size, (1, example_length),
                        generator=torch.Generator().manual_seed(0))
    return model, (idx,)


def make_nanogpt_cached(example_length: int = 16):
    """The trained GPT with a KV cache (examples/nanogpt/kv_cache.py): example tokens and
    their positions 0..example_length-1."""
    return cached_example(load_trained(), example_length)
