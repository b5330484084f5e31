"""A Hugging Face Llama or Qwen2 checkpoint directory -> the same weights as a GGUF file
llama.cpp runs, for bench/llm_versus_llamacpp.py (benchmark only: needs the `gguf` and
`llama-cpp-python` packages of bench/requirements-llamacpp.txt).

    write_gguf("build/bench-llm/llm_135m", "135m-f32.gguf")        # float32, as stored
    quantize_gguf("135m-f32.gguf", "135m-q4_0.gguf", "Q4_0")       # llama.cpp's quantizer

write_gguf reads the checkpoint as Tailor does (tailor/llm/config.py, weights.py) and
writes what llama.cpp's `llama` and `qwen2` graphs load: the hyperparameters as metadata,
each tensor under llama.cpp's name, float32. Two things differ from the Hugging Face
layout:
- llama.cpp's `llama` graph rotates adjacent pairs (2i, 2i+1) of each head, Hugging Face's
  Llama the two halves (i, i + head_dim/2): the query and key rows of every head are
  reordered to match (adjacent_pairs); Qwen2 runs in llama.cpp with halves as stored.
- RoPE scaling (llama3, linear) becomes the per-frequency divisors llama.cpp reads from
  `rope_freqs.weight`, taken from Tailor's own inverse frequencies.
The vocabulary is written as `none` with the model's size: the benchmark feeds token ids.

quantize_gguf is llama.cpp's `llama-quantize` through its C API, so a Q4_0 file is what
users get: Q4_0 linears, and the tied embedding/output table in llama.cpp's choice for it
(Q8_0 when the width is not a multiple of 256, else Q6_K).
"""

import ctypes
import os

from tailor.llm.config import LlmConfig, LlmError, Rope, read_config
from tailor.llm.decoder import inverse_frequencies
from tailor.llm.weights import read_checkpoint_tensors

# model_type -> llama.cpp's architecture name.
ARCHITECTURES = {"llama": "llama", "qwen2": "qwen2"}
QUANT_TYPES = ("Q4_0", "Q8_0")
# Hugging Face's per-layer names (after model.layers.N.) -> llama.cpp's (after blk.N.).
LAYER_TENSORS = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q",
                 "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
                 "self_attn.o_proj": "attn_output", "post_attention_layernorm": "ffn_norm",
                 "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
                 "mlp.down_proj": "ffn_down"}


def adjacent_pairs(rows, heads: int):
    """The rows (a weight [heads * head_dim, in] or a bias) of a Hugging Face Llama query
    or key projection reordered per head so that rotating adjacent pairs, as llama.cpp's
    llama graph does, rotates what Hugging Face's halves did: row i goes to 2i and row
    i + head_dim/2 to 2i + 1."""
    head_dim = rows.shape[0] // heads
    return (rows.reshape(heads, 2, head_dim // 2, *rows.shape[1:]).transpose(1, 2)
            .reshape(rows.shape))


def _check(config: LlmConfig) -> None:
    why = None
    if config.model_type not in ARCHITECTURES:
        why = f"architecture '{config.model_type}' has no GGUF writer here (only " \
              f"{', '.join(ARCHITECTURES)})"
    elif any(config.sliding_windows):
        why = "sliding-window layers: llama.cpp's llama and qwen2 graphs attend to the " \
              "whole cache"
    elif config.rope.fraction != 1.0:
        why = "partial rotary embeddings"
    elif config.model_type == "qwen2" and config.rope.scaling != "default":
        why = "RoPE scaling on Qwen2 (llama.cpp's qwen2 graph reads no rope_freqs)"
    if why:
        raise LlmError(f"{config.checkpoint}: cannot write it as GGUF: {why}")


def rope_divisors(rope: Rope, head_dim: int):
    """llama.cpp's rope_freqs: by how much scaling divides each unscaled frequency."""
    unscaled = Rope(theta=rope.theta)
    return inverse_frequencies(unscaled, head_dim) / inverse_frequencies(rope, head_dim)


def write_gguf(checkpoint: str, path: str) -> None:
    """Writes the checkpoint directory's weights, float32, as the GGUF file `path`."""
    import gguf
    config = read_config(checkpoint)
    _check(config)
    tensors = read_checkpoint_tensors(checkpoint)
    taken = set()

    def take(name: str):
        if name not in tensors:
            raise LlmError(f"{checkpoint}: no tensor '{name}' in the checkpoint")
        taken.add(name)
        return tensors[name].float()

    out = {"token_embd.weight": take("model.embed_tokens.weight"),
           "output_norm.weight": take("model.norm.weight")}
    if not config.tied_embeddings:
        out["output.weight"] = take("lm_head.weight")
    permuted = {"attn_q": config.heads, "attn_k": config.kv_heads}
    for i in range(config.layers):
        for hf, name in LAYER_TENSORS.items():
            for kind in ("weight", "bias"):
                source = f"model.layers.{i}.{hf}.{kind}"
                if kind == "bias" and source not in tensors:
                    continue
                value = take(source)
                if config.model_type == "llama" and name in permuted:
                    value = adjacent_pairs(value, permuted[name])
                out[f"blk.{i}.{name}.{kind}"] = value
    left = sorted(n for n in tensors if n not in taken and not n.endswith("inv_freq"))
    if left:
        raise LlmError(f"{checkpoint}: {len(left)} tensors have no GGUF name here "
                       f"(e.g. {', '.join(left[:3])})")
    if config.rope.scaling != "default":
        out["rope_freqs.weight"] = rope_divisors(config.rope, config.head_dim)

    writer = gguf.GGUFWriter(path, ARCHITECTURES[config.model_type])
    writer.add_name(os.path.basename(os.path.normpath(checkpoint)))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_vocab_size(config.vocab_size)
    writer.add_context_length(config.max_positions)
    writer.add_embedding_length(config.hidden)
    writer.add_block_count(config.layers)
    writer.add_feed_forward_length(config.intermediate)
    writer.add_head_count(config.heads)
    writer.add_head_count_kv(config.kv_heads)
    writer.add_key_length(config.head_dim)
    writer.add_value_length(config.head_dim)
    writer.add_rope_dimension_count(config.head_dim)
    writer.add_rope_freq_base(config.rope.theta)
    writer.add_layer_norm_rms_eps(config.norm_eps)
    writer.add_tokenizer_model("none")
    for name, value in out.items():
        writer.add_tensor(name, value.contiguous().numpy())
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def quantize_gguf(source: str, dest: str, kind: str, threads: int = 2) -> None:
    """Writes `source` (a float32 GGUF) quantized to `kind` (QUANT_TYPES) as `dest`, with
    llama.cpp's quantizer and its default choice of type per tensor."""
    import llama_cpp
    if kind not in QUANT_TYPES:
        raise ValueError(f"quantize_gguf: '{kind}' is not one of {', '.join(QUANT_TYPES)}")
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{kind}")
    params.nthread = threads
    if llama_cpp.llama_model_quantize(source.encode(), dest.encode(), ctypes.byref(params)):
        raise RuntimeError(f"llama.cpp could not quantize {source} to {kind}")


def weights_read_per_token(path: str) -> int:
    """Bytes of weights one decode step of the GGUF file `path` reads: every tensor, but
    of an embedding table with its own output projection only one row (negligible)."""
    import gguf
    tensors = {t.name: int(t.n_bytes) for t in gguf.GGUFReader(path).tensors}
    total = sum(tensors.values())
    return total - tensors["token_embd.weight"] if "output.weight" in tensors else total
