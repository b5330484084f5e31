"""A Hugging Face checkpoint directory (save_pretrained) -> LlmConfig, without torch.

    config = read_config("/data/SmolLM-135M")     # config.json + generation_config.json
    config.architecture, config.layers, config.kv_heads, config.rope, config.eos_ids

One LlmConfig describes every architecture the decoder (decoder.py) runs: the per-model
differences are fields (norm kind, gated MLP, parallel residual, rotary fraction, sliding
windows, learned positions, embedding scale), read here from each architecture's own
config keys, in the new (`rope_parameters`) and the older (`rope_theta`, `rope_scaling`)
layouts. A checkpoint of another architecture, or a feature the decoder does not run
(a RoPE scaling type, soft-capping), is one LlmError naming the file and the key.
"""

import json
import os
from dataclasses import dataclass

from codegen.errors import ManifestError

# model_type of config.json -> the architecture's name in messages.
ARCHITECTURES = {"llama": "Llama", "qwen2": "Qwen2", "mistral": "Mistral", "phi3": "Phi-3",
                 "gemma": "Gemma", "gpt2": "GPT-2", "gpt_neox": "GPT-NeoX"}
ROPE_TYPES = ("default", "linear", "llama3")


class LlmError(ManifestError):
    """A checkpoint Tailor cannot export: the message names the file, the key and why."""


@dataclass(frozen=True)
class Rope:
    theta: float
    fraction: float = 1.0          # of each head's dims that rotate (GPT-NeoX, Phi)
    scaling: str = "default"       # ROPE_TYPES
    factor: float = 1.0            # linear, llama3
    low_freq_factor: float = 1.0   # llama3
    high_freq_factor: float = 4.0  # llama3
    original_max_positions: int = 0  # llama3


@dataclass(frozen=True)
class LlmConfig:
    checkpoint: str
    model_type: str                # config.json's model_type: a key of ARCHITECTURES
    vocab_size: int
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    max_positions: int             # what the checkpoint was trained for
    norm: str                      # "rms", "rms_plus_one" (Gemma: x * (1 + w)), "layer"
    norm_eps: float
    activation: str                # "silu", "gelu", "gelu_tanh"
    gated_mlp: bool                # act(gate(x)) * up(x), else act(up(x))
    parallel_residual: bool        # x + attn(norm1(x)) + mlp(norm2(x)) (GPT-NeoX)
    qkv_bias: bool
    out_bias: bool
    mlp_bias: bool
    rope: Rope | None              # None: learned positions (GPT-2)
    sliding_windows: tuple[int, ...]  # per layer, 0 = the whole cache
    embed_scale: float             # tokens' embeddings times this (Gemma: sqrt(hidden))
    tied_embeddings: bool          # the output projection is the embedding table
    bos_id: int                    # -1 when the checkpoint has none
    eos_ids: tuple[int, ...]

    @property
    def name(self) -> str:
        return ARCHITECTURES[self.model_type]


def _read_json(path: str, required: bool) -> dict:
    if not os.path.isfile(path):
        if required:
            raise LlmError(f"{path}: no such file; a checkpoint directory is what "
                           "save_pretrained writes (config.json, model.safetensors, tokenizer)")
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise LlmError(f"{path}: cannot read it as JSON ({e})") from None
    if not isinstance(data, dict):
        raise LlmError(f"{path}: expected a JSON object")
    return data


class _Keys:
    """config.json's values, with errors naming the file and the key."""

    def __init__(self, path: str, data: dict):
        self.path, self.data = path, data

    def get(self, *names, default=None):
        for name in names:
            if self.data.get(name) is not None:
                return self.data[name]
        return default

    def int(self, *names, default=None) -> int:
        value = self.get(*names, default=default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise LlmError(f"{self.path}: {names[0]} must be a non-negative integer, "
                           f"not {value!r}")
        return value

    def fail(self, key: str, why: str):
        raise LlmError(f"{self.path}: {key}: {why}")


def _rope(keys: _Keys, fraction: float) -> Rope:
    params = dict(keys.get("rope_parameters") or {})
    legacy = keys.get("rope_scaling") or {}
    if not params:  # the older layout: rope_theta beside a rope_scaling mapping
        params = {**legacy, "rope_theta": keys.get("rope_theta", "rotary_emb_base",
                                                   default=10000.0)}
    kind = params.get("rope_type", params.get("type", "default"))
    if kind not in ROPE_TYPES:
        keys.fail("rope_parameters" if "rope_parameters" in keys.data else "rope_scaling",
                  f"RoPE scaling '{kind}' is not supported (supported: "
                  f"{', '.join(ROPE_TYPES)})")
    fraction = params.get("partial_rotary_factor", fraction)
    return Rope(theta=float(params["rope_theta"]), fraction=float(fraction), scaling=kind,
                factor=float(params.get("factor", 1.0)),
                low_freq_factor=float(params.get("low_freq_factor", 1.0)),
                high_freq_factor=float(params.get("high_freq_factor", 4.0)),
                original_max_positions=int(params.get("original_max_position_embeddings",
                                                      keys.get("max_position_embeddings",
                                                               default=0))))


def _windows(keys: _Keys, model_type: str, layers: int) -> tuple[int, ...]:
    window = keys.get("sliding_window")
    if model_type == "qwen2":  # windows only on layers marked sliding_attention
        if not keys.get("use_sliding_window", default=False):
            return (0,) * layers
        max_window = keys.int("max_window_layers", default=layers)
        kinds = keys.get("layer_types") or [
            "sliding_attention" if i >= max_window else "full_attention" for i in range(layers)]
        return tuple(int(window or 0) if kind == "sliding_attention" else 0 for kind in kinds)
    if model_type in ("mistral", "phi3") and window:
        return (int(window),) * layers
    return (0,) * layers


def _eos_ids(generation: dict, keys: _Keys) -> tuple[int, ...]:
    eos = generation.get("eos_token_id", keys.get("eos_token_id"))
    if eos is None:
        return ()
    return tuple(eos) if isinstance(eos, list) else (int(eos),)


def read_config(checkpoint: str) -> LlmConfig:
    """The LlmConfig of the checkpoint directory `checkpoint`; LlmError when it is not one
    the decoder runs."""
    path = os.path.join(checkpoint, "config.json")
    keys = _Keys(path, _read_json(path, required=True))
    generation = _read_json(os.path.join(checkpoint, "generation_config.json"), required=False)
    model_type = keys.get("model_type", default="")
    if model_type not in ARCHITECTURES:
        keys.fail("model_type", f"architecture '{model_type}' is not supported; supported: "
                  + ", ".join(f"{name} ({t})" for t, name in ARCHITECTURES.items()))
    for key in ("attn_logit_softcapping", "final_logit_softcapping"):
        if keys.get(key):
            keys.fail(key, "soft-capping is not supported")
    gpt2, neox = model_type == "gpt2", model_type == "gpt_neox"
    hidden = keys.int("n_embd" if gpt2 else "hidden_size")
    heads = keys.int("n_head" if gpt2 else "num_attention_heads")
    layers = keys.int("n_layer" if gpt2 else "num_hidden_layers")
    activation = keys.get("hidden_activation", "hidden_act", "activation_function",
                          default="silu")
    activations = {"silu": "silu", "swish": "silu", "gelu": "gelu", "gelu_new": "gelu_tanh",
                   "gelu_pytorch_tanh": "gelu_tanh", "gelu_fast": "gelu_tanh"}
    if activation not in activations:
        keys.fail("hidden_act", f"activation '{activation}' is not supported (supported: "
                  f"{', '.join(activations)})")
    if gpt2 and (keys.get("scale_attn_by_inverse_layer_idx") or
                 keys.get("scale_attn_weights") is False):
        keys.fail("scale_attn_weights", "only 1/sqrt(head_dim) attention scaling is supported")
    head_dim = keys.int("head_dim", default=hidden // heads) if heads else 0
    if heads == 0 or head_dim == 0:
        keys.fail("num_attention_heads", "must be at least 1 and divide hidden_size")
    kv_heads = keys.int("num_key_value_heads", default=heads)
    if kv_heads == 0 or heads % kv_heads:
        keys.fail("num_key_value_heads", f"{kv_heads} does not divide the {heads} query heads")
    bias = bool(keys.get("attention_bias", default=neox))
    if neox and not keys.get("rope_parameters"):
        fraction = keys.get("rotary_pct", default=0.25)
    else:
        fraction = 1.0
    bos = generation.get("bos_token_id", keys.get("bos_token_id"))
    return LlmConfig(
        checkpoint=checkpoint, model_type=model_type, vocab_size=keys.int("vocab_size"),
        hidden=hidden, layers=layers, heads=heads, kv_heads=kv_heads, head_dim=head_dim,
        intermediate=keys.int("n_inner", "intermediate_size", default=4 * hidden),
        max_positions=keys.int("n_positions" if gpt2 else "max_position_embeddings"),
        norm=("layer" if gpt2 or neox else "rms_plus_one" if model_type == "gemma" else "rms"),
        norm_eps=float(keys.get("layer_norm_epsilon", "layer_norm_eps", "rms_norm_eps",
                                default=1e-6)),
        activation=activations[activation], gated_mlp=not (gpt2 or neox),
        parallel_residual=neox and bool(keys.get("use_parallel_residual", default=True)),
        qkv_bias=gpt2 or model_type == "qwen2" or bias, out_bias=gpt2 or bias,
        mlp_bias=gpt2 or neox or bool(keys.get("mlp_bias", default=False)),
        rope=None if gpt2 else _rope(keys, fraction),
        sliding_windows=_windows(keys, model_type, layers),
        embed_scale=hidden ** 0.5 if model_type == "gemma" else 1.0,
        tied_embeddings=bool(keys.get("tie_word_embeddings", default=True)),
        bos_id=int(bos) if isinstance(bos, int) else -1,
        eos_ids=_eos_ids(generation, keys))
