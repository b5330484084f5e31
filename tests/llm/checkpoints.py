"""Tiny random checkpoints of every architecture the llm: key exports, saved the way
users get them (save_pretrained: config.json, generation_config.json, model.safetensors),
for the tests and benchmarks. Nothing is downloaded: transformers builds each model
from a config with seeded random weights.

    path = save_checkpoint("llama", tmp_path / "llama")   # -> the directory
    model = load_transformers(path)                       # transformers' own model
"""

import os

import torch

from examples.zoo.torchvision_models import skip_torchvision_op_registrations

skip_torchvision_op_registrations()   # transformers imports torchvision when installed

VOCAB = 320
_SMALL = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
              initializer_range=0.1, bos_token_id=1, eos_token_id=2)

# name -> (transformers config class, model class, config arguments); each variant makes
# one feature of its architecture matter in a short test: GQA, rope scaling, a sliding
# window shorter than the test's sequences, biases, partial rotary, tied embeddings.
ARCHITECTURES = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", dict(
        _SMALL, rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
                                 "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                 "original_max_position_embeddings": 32})),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", dict(
        _SMALL, tie_word_embeddings=True, use_sliding_window=True, sliding_window=6,
        max_window_layers=1)),
    "mistral": ("MistralConfig", "MistralForCausalLM", dict(_SMALL, sliding_window=5,
                                                            head_dim=24)),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", dict(
        _SMALL, num_key_value_heads=4, pad_token_id=0, eos_token_id=[2, 3],
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0,
                         "partial_rotary_factor": 0.5})),
    "gemma": ("GemmaConfig", "GemmaForCausalLM", dict(_SMALL, num_key_value_heads=1,
                                                      head_dim=32, pad_token_id=0)),
    "gpt2": ("GPT2Config", "GPT2LMHeadModel", dict(
        vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=256,
        initializer_range=0.1, bos_token_id=1, eos_token_id=2)),
    "gpt_neox": ("GPTNeoXConfig", "GPTNeoXForCausalLM", dict(
        {k: v for k, v in _SMALL.items() if k != "num_key_value_heads"}, rope_parameters={
            "rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25})),
}


def make_model(name: str, seed: int = 0, **overrides):
    """transformers' model of architecture `name` with seeded random weights."""
    import transformers
    config_class, model_class, arguments = ARCHITECTURES[name]
    arguments = {**arguments, **overrides}
    torch.manual_seed(seed)
    config = getattr(transformers, config_class)(**arguments)
    return getattr(transformers, model_class)(config).eval()


def save_checkpoint(name: str, directory, seed: int = 0, **overrides) -> str:
    """Saves a random checkpoint of architecture `name` into `directory`."""
    model = make_model(name, seed, **overrides)
    model.save_pretrained(str(directory))
    return str(directory)


def load_transformers(directory):
    """transformers' model of a saved checkpoint, in float32, eval mode."""
    from transformers import AutoModelForCausalLM
    return AutoModelForCausalLM.from_pretrained(str(directory), dtype=torch.float32).eval()


def greedy(model, prompt: list[int], new_tokens: int) -> list[int]:
    """transformers' greedy generation: the ids after `prompt`."""
    ids = torch.tensor([prompt])
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                             max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                             pad_token_id=0)
    return out[0, len(prompt):].tolist()


# The tokenizer each architecture's checkpoints ship, in kind (tests/llm/tokenizer_kit.py
# trains them on KJV text): (kind, bos token or None, eos token).
TOKENIZERS = {"llama": ("llama3", "<|begin_of_text|>", "<|end_of_text|>"),
              "qwen2": ("qwen2", None, "<|endoftext|>"),
              "mistral": ("mistral", "<s>", "</s>"),
              "phi3": ("llama2", "<s>", "</s>"),
              "gemma": ("gemma", "<s>", "</s>"),
              "gpt2": ("gpt2", None, "<|endoftext|>"),
              "gpt_neox": ("smollm", None, "<|endoftext|>")}
_trained = {}


def train_tokenizer(kind: str):
    """A tokenizers.Tokenizer of `kind` trained on KJV text (once per process)."""
    if kind not in _trained:
        from tests.llm import tokenizer_kit as t
        corpus = t.training_text()
        if kind in ("llama2", "mistral", "gemma"):
            _trained[kind] = t.sentencepiece_style(corpus, kind)
        else:
            split = {"llama3": t.LLAMA3_SPLIT, "qwen2": t.QWEN2_SPLIT}.get(kind)
            bos = "<|begin_of_text|>" if kind == "llama3" else None
            specials = (["<|begin_of_text|>", "<|end_of_text|>"] if kind == "llama3"
                        else ["<|endoftext|>"])
            _trained[kind] = t.byte_level(corpus, split, specials=specials, bos=bos,
                                          digits=kind == "smollm", ignore_merges=kind == "llama3")
    return _trained[kind]


def save_with_tokenizer(name: str, directory, seed: int = 0, **overrides) -> str:
    """A random checkpoint of architecture `name` with the kind of tokenizer.json its
    family ships; the config's vocabulary size and bos/eos ids are the tokenizer's."""
    kind, bos, eos = TOKENIZERS[name]
    tokenizer = train_tokenizer(kind)
    ids = {"vocab_size": tokenizer.get_vocab_size(),
           "bos_token_id": tokenizer.token_to_id(bos) if bos else tokenizer.token_to_id(eos),
           "eos_token_id": tokenizer.token_to_id(eos)}
    save_checkpoint(name, directory, seed, **{**ids, **overrides})
    tokenizer.save(os.path.join(str(directory), "tokenizer.json"))
    return str(directory)
