"""A checkpoint's weights -> the decoder's parameters, by name, in float32.

    weights = load_weights(config)   # {"embed.weight": tensor, "layers.0.qkv.weight": ...}

Reads model.safetensors (or the shards model.safetensors.index.json lists; the format is
an 8-byte header length, a JSON header of names, dtypes, shapes and byte ranges, then the
data: read here without the safetensors package), else pytorch_model.bin. Then renames
each architecture's tensors to the decoder's names (decoder.py), in the layout it runs:
- the query, key and value projections as one matrix, rows [q; k; v] (one product per
  layer instead of three; GPT-NeoX's per-head interleaving is undone);
- a gated MLP's gate and up projections as one matrix, rows [gate; up];
- GPT-2's Conv1D weights transposed to Linear's [out, in];
- Gemma's norm weights w stored as 1 + w (its norm multiplies by 1 + w);
- no lm_head when the embeddings are tied: the decoder shares the table.
A tensor the mapping does not use is an error (a variant the decoder would run wrongly),
except buffers the checkpoint saved from its own implementation (rotary tables, masks).
"""

import json
import os
import re
import struct

import torch

from tailor.llm.config import LlmConfig, LlmError

_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
           "F64": torch.float64, "I64": torch.int64, "I32": torch.int32}
# Saved buffers that are not weights: recomputed by the decoder.
_IGNORED = re.compile(r"(rotary_emb\.inv_freq|attn\.bias|attn\.masked_bias|"
                      r"attention\.bias|attention\.masked_bias)$")


def read_safetensors(path: str) -> dict[str, torch.Tensor]:
    """Every tensor of the .safetensors file `path`, as stored."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise LlmError(f"{path}: too short for a safetensors file")
    (header_size,) = struct.unpack("<Q", data[:8])
    if 8 + header_size > len(data):
        raise LlmError(f"{path}: its header size {header_size} is past the end of the file")
    try:
        header = json.loads(data[8:8 + header_size])
    except ValueError as e:
        raise LlmError(f"{path}: its header is not JSON ({e})") from None
    body = memoryview(data)[8 + header_size:]
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec.get("dtype"))
        if dtype is None:
            raise LlmError(f"{path}: tensor {name} has dtype {spec.get('dtype')}; supported: "
                           + ", ".join(_DTYPES))
        start, end = spec["data_offsets"]
        count = 1
        for d in spec["shape"]:
            count *= d
        if not 0 <= start <= end <= len(body) or end - start != count * dtype.itemsize:
            raise LlmError(f"{path}: tensor {name}: its byte range does not fit the file")
        flat = (torch.frombuffer(bytearray(body[start:end]), dtype=dtype) if count
                else torch.empty(0, dtype=dtype))
        tensors[name] = flat.reshape(spec["shape"])
    return tensors


def read_checkpoint_tensors(checkpoint: str) -> dict[str, torch.Tensor]:
    """The tensors of a checkpoint directory, by their names in the checkpoint."""
    single = os.path.join(checkpoint, "model.safetensors")
    index = single + ".index.json"
    if os.path.isfile(single):
        return read_safetensors(single)
    if os.path.isfile(index):
        with open(index, encoding="utf-8") as f:
            shards = sorted(set(json.load(f)["weight_map"].values()))
        tensors = {}
        for shard in shards:
            tensors.update(read_safetensors(os.path.join(checkpoint, shard)))
        return tensors
    legacy = os.path.join(checkpoint, "pytorch_model.bin")
    if os.path.isfile(legacy):
        return torch.load(legacy, map_location="cpu", weights_only=True)
    raise LlmError(f"{checkpoint}: no model.safetensors, model.safetensors.index.json or "
                   "pytorch_model.bin; save the model with save_pretrained")


class _Source:
    """The checkpoint's tensors, each taken at most once, in float32."""

    def __init__(self, checkpoint: str, tensors: dict):
        self.checkpoint, self.tensors, self.taken = checkpoint, tensors, set()

    def has(self, name: str) -> bool:
        return name in self.tensors

    def take(self, name: str) -> torch.Tensor:
        if name not in self.tensors:
            raise LlmError(f"{self.checkpoint}: the checkpoint has no tensor '{name}', which "
                           "its config.json's architecture needs")
        self.taken.add(name)
        return self.tensors[name].to(torch.float32)

    def check_all_taken(self) -> None:
        left = sorted(n for n in self.tensors if n not in self.taken and not _IGNORED.search(n))
        if left:
            raise LlmError(f"{self.checkpoint}: {len(left)} tensors are not used by the "
                           f"decoder (e.g. {', '.join(left[:3])}); the checkpoint is a variant "
                           "of its architecture that Tailor does not export")


def _prefix(source: _Source, candidates) -> str:
    for prefix in candidates:
        if any(name.startswith(prefix) for name in source.tensors):
            return prefix
    return ""


def _norm(out: dict, source: _Source, name: str, path: str, config: LlmConfig) -> None:
    weight = source.take(path + ".weight")
    out[name + ".weight"] = weight + 1 if config.norm == "rms_plus_one" else weight
    if config.norm == "layer":
        out[name + ".bias"] = source.take(path + ".bias")


def _linear(out: dict, source: _Source, name: str, paths, bias: bool,
            transpose: bool = False) -> None:
    """One Linear from the rows of one or more checkpoint projections."""
    weights = [source.take(p + ".weight") for p in paths]
    out[name + ".weight"] = torch.cat([w.t() if transpose else w for w in weights]).contiguous()
    if bias:
        out[name + ".bias"] = torch.cat([source.take(p + ".bias") for p in paths])


def _neox_qkv(source: _Source, path: str, config: LlmConfig) -> tuple:
    """GPT-NeoX's fused projection has rows [head, (q, k, v), head_dim]: reorder them to
    [(q, k, v), head, head_dim]."""
    h, d = config.heads, config.head_dim
    weight = source.take(path + ".weight").reshape(h, 3, d, -1).transpose(0, 1)
    bias = source.take(path + ".bias").reshape(h, 3, d).transpose(0, 1)
    return weight.reshape(3 * h * d, -1).contiguous(), bias.reshape(-1).contiguous()


def _layer(out: dict, source: _Source, config: LlmConfig, p: str, i: int) -> None:
    o = f"layers.{i}."
    t = config.model_type
    if t == "gpt2":
        _norm(out, source, o + "attn_norm", p + "ln_1", config)
        _linear(out, source, o + "qkv", [p + "attn.c_attn"], True, transpose=True)
        _linear(out, source, o + "out", [p + "attn.c_proj"], True, transpose=True)
        _norm(out, source, o + "mlp_norm", p + "ln_2", config)
        _linear(out, source, o + "up", [p + "mlp.c_fc"], True, transpose=True)
        _linear(out, source, o + "down", [p + "mlp.c_proj"], True, transpose=True)
        return
    if t == "gpt_neox":
        _norm(out, source, o + "attn_norm", p + "input_layernorm", config)
        out[o + "qkv.weight"], out[o + "qkv.bias"] = _neox_qkv(
            source, p + "attention.query_key_value", config)
        _linear(out, source, o + "out", [p + "attention.dense"], config.out_bias)
        _norm(out, source, o + "mlp_norm", p + "post_attention_layernorm", config)
        _linear(out, source, o + "up", [p + "mlp.dense_h_to_4h"], True)
        _linear(out, source, o + "down", [p + "mlp.dense_4h_to_h"], True)
        return
    _norm(out, source, o + "attn_norm", p + "input_layernorm", config)
    attn = p + "self_attn."
    qkv = ([attn + "qkv_proj"] if t == "phi3"
           else [attn + "q_proj", attn + "k_proj", attn + "v_proj"])
    _linear(out, source, o + "qkv", qkv, config.qkv_bias)
    _linear(out, source, o + "out", [attn + "o_proj"], config.out_bias)
    _norm(out, source, o + "mlp_norm", p + "post_attention_layernorm", config)
    mlp = p + "mlp."
    up = [mlp + "gate_up_proj"] if t == "phi3" else [mlp + "gate_proj", mlp + "up_proj"]
    _linear(out, source, o + "up", up, config.mlp_bias)
    _linear(out, source, o + "down", [mlp + "down_proj"], config.mlp_bias)


def load_weights(config: LlmConfig) -> dict[str, torch.Tensor]:
    """The decoder's parameters (decoder.py's names) from `config`'s checkpoint."""
    source = _Source(config.checkpoint, read_checkpoint_tensors(config.checkpoint))
    out = {}
    t = config.model_type
    if t == "gpt2":
        p = _prefix(source, ["transformer."])
        out["embed.weight"] = source.take(p + "wte.weight")
        out["positions.weight"] = source.take(p + "wpe.weight")
        layer, final, head = p + "h.{}.", p + "ln_f", "lm_head.weight"
    elif t == "gpt_neox":
        p = _prefix(source, ["gpt_neox."])
        out["embed.weight"] = source.take(p + "embed_in.weight")
        layer, final, head = p + "layers.{}.", p + "final_layer_norm", "embed_out.weight"
    else:
        p = _prefix(source, ["model."])
        out["embed.weight"] = source.take(p + "embed_tokens.weight")
        layer, final, head = p + "layers.{}.", p + "norm", "lm_head.weight"
    for i in range(config.layers):
        _layer(out, source, config, layer.format(i), i)
    _norm(out, source, "norm", final, config)
    if not config.tied_embeddings:
        out["lm_head.weight"] = source.take(head)
    elif source.has(head):  # saved although tied: the same values, stored once here
        source.take(head)
    source.check_all_taken()
    return out
