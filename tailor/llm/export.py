"""The factory an `llm:` manifest names (manifest.py): a checkpoint directory -> the
cached decoder and its example inputs, as model manifests' factories return them."""

import torch

from tailor.llm.config import read_config
from tailor.llm.decoder import Decoder
from tailor.llm.weights import load_weights


def make_decoder(checkpoint: str, max_seq_len: int) -> Decoder:
    config = read_config(checkpoint)
    return Decoder(config, load_weights(config), max_seq_len).eval()


def make_llm(checkpoint: str, max_seq_len: int, example_length: int = 8, seed: int = 0):
    """(Decoder, (tokens [1, T], positions 0..T-1)) with seeded tokens; T is at most
    max_seq_len."""
    decoder = make_decoder(checkpoint, max_seq_len)
    length = min(example_length, max_seq_len)
    tokens = torch.randint(0, decoder.config.vocab_size, (1, length),
                           generator=torch.Generator().manual_seed(seed))
    return decoder, (tokens, torch.arange(length))


def eager_greedy(decoder, prompt: list[int], count: int, eos_ids=()) -> list[int]:
    """Greedy ids after `prompt` from a decoder in torch eager, stopping after an eos id."""
    generated = []
    with torch.no_grad():
        logits = decoder(torch.tensor([prompt]), torch.arange(len(prompt)))
        while len(generated) < count:
            generated.append(int(logits[0, -1].argmax()))
            if generated[-1] in eos_ids:
                break
            position = torch.tensor([len(prompt) + len(generated) - 1])
            logits = decoder(torch.tensor([[generated[-1]]]), position)
    return generated
