"""bench/gguf_checkpoint.py, the GGUF file bench/llm_versus_llamacpp.py gives llama.cpp:
tensor names, shapes and metadata, the query/key rows reordered for llama.cpp's RoPE,
RoPE scaling as rope_freqs; and llama.cpp running it gives transformers' logits and
greedy ids (tiny Llama and Qwen2 checkpoints, and SmolLM-135M's shape).

Opt-in, as the benchmark's packages are not the project's: install
bench/requirements-llamacpp.txt and set TAILOR_LLAMACPP=1. Without `gguf` (or, for the
llama.cpp runs, `llama_cpp`) the tests skip.
"""

import os
import sys

import pytest
import torch

from tests.conftest import REPO
from tests.llm.checkpoints import load_transformers, save_checkpoint

sys.path.insert(0, REPO)
pytestmark = pytest.mark.skipif(os.environ.get("TAILOR_LLAMACPP") != "1",
                                reason="set TAILOR_LLAMACPP=1 (needs bench/requirements-llamacpp.txt)")

PROMPT = [5, 17, 200, 33, 9, 41, 77, 3, 12, 250, 64, 128]
NEW_TOKENS = 8
# llama3 RoPE scaling, GQA, untied; biases, tied, without the sliding window llama.cpp's
# qwen2 graph does not run.
CASES = {"llama": {}, "qwen2": {"use_sliding_window": False}}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("gguf")
    return {name: save_checkpoint(name, folder / name, **overrides)
            for name, overrides in CASES.items()}


def write(checkpoint: str) -> str:
    from bench.gguf_checkpoint import write_gguf
    path = checkpoint + ".gguf"
    write_gguf(checkpoint, path)
    return path


@pytest.mark.parametrize("name", list(CASES))
def test_tensors_and_metadata(checkpoints, name):
    gguf = pytest.importorskip("gguf")
    model = load_transformers(checkpoints[name])
    config = model.config
    reader = gguf.GGUFReader(write(checkpoints[name]))
    tensors = {t.name: t for t in reader.tensors}
    per_layer = ["attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm",
                 "ffn_gate", "ffn_up", "ffn_down"]
    expected = {"token_embd.weight", "output_norm.weight"}
    expected |= {f"blk.{i}.{n}.weight" for i in range(config.num_hidden_layers)
                 for n in per_layer}
    if name == "llama":  # untied, llama3 scaling
        expected |= {"output.weight", "rope_freqs.weight"}
    else:
        expected |= {f"blk.{i}.attn_{n}.bias" for i in range(config.num_hidden_layers)
                     for n in "qkv"}
    assert set(tensors) == expected
    state = model.state_dict()
    h, kv = config.num_attention_heads, config.num_key_value_heads
    d = getattr(config, "head_dim", None) or config.hidden_size // h
    for i in range(config.num_hidden_layers):
        hf = f"model.layers.{i}."
        for name_, source in (("ffn_gate", "mlp.gate_proj"), ("attn_v", "self_attn.v_proj"),
                              ("attn_output", "self_attn.o_proj")):
            got = tensors[f"blk.{i}.{name_}.weight"]
            want = state[hf + source + ".weight"]
            # GGUF lists dims innermost first: a Linear [out, in] is (in, out).
            assert list(got.shape) == [want.shape[1], want.shape[0]]
            assert torch.equal(torch.from_numpy(got.data.copy()), want)
        for name_, source, heads in (("attn_q", "q_proj", h), ("attn_k", "k_proj", kv)):
            got = torch.from_numpy(tensors[f"blk.{i}.{name_}.weight"].data.copy())
            want = state[hf + f"self_attn.{source}.weight"].reshape(heads, d, -1)
            got = got.reshape(heads, d, -1)
            if name == "llama":  # halves (j, j + d/2) become adjacent rows (2j, 2j + 1)
                assert torch.equal(got[:, 0::2], want[:, :d // 2])
                assert torch.equal(got[:, 1::2], want[:, d // 2:])
            else:  # llama.cpp's qwen2 rotates halves, as Hugging Face does
                assert torch.equal(got, want)
    if name == "llama":
        # llama.cpp divides each frequency by rope_freqs: unscaled / transformers' scaled.
        theta = config.rope_parameters["rope_theta"]
        unscaled = 1.0 / theta ** (torch.arange(0, d, 2).float() / d)
        scaled = model.model.rotary_emb.inv_freq
        got = torch.from_numpy(tensors["rope_freqs.weight"].data.copy())
        torch.testing.assert_close(got, unscaled / scaled)
        assert got.max() > 1.0  # the test checkpoint's scaling touches some frequencies
    arch = "llama" if name == "llama" else "qwen2"
    field = lambda key: reader.fields[f"{arch}.{key}"].contents()  # noqa: E731
    assert (field("block_count"), field("attention.head_count"),
            field("attention.head_count_kv"), field("embedding_length"),
            field("feed_forward_length"), field("vocab_size")) == (
        config.num_hidden_layers, h, kv, config.hidden_size, config.intermediate_size,
        config.vocab_size)


def test_unsupported_checkpoint_is_one_error(tmp_path):
    pytest.importorskip("gguf")
    from bench.gguf_checkpoint import write_gguf
    from tailor.llm.config import LlmError
    checkpoint = save_checkpoint("qwen2", tmp_path / "windowed")  # sliding window on
    with pytest.raises(LlmError, match="windowed: cannot write it as GGUF: sliding-window"):
        write_gguf(checkpoint, str(tmp_path / "windowed.gguf"))


@pytest.mark.parametrize("name", list(CASES))
def test_llamacpp_equals_transformers(checkpoints, name):
    pytest.importorskip("llama_cpp")
    from bench.llamacpp_runner import compare_with_transformers
    c = compare_with_transformers(checkpoints[name], write(checkpoints[name]), PROMPT,
                                  NEW_TOKENS)
    assert c["scale"] > 1.0  # not near-uniform logits, where any order would pass
    assert c["diff"] < 1e-4 * c["scale"]
    assert c["ids"] == c["expected"]


def test_rope_layout_matters(checkpoints, monkeypatch):
    """Without the reordering llama.cpp computes another model: the check above sees it."""
    pytest.importorskip("llama_cpp")
    from bench import gguf_checkpoint
    from bench.llamacpp_runner import compare_with_transformers
    monkeypatch.setattr(gguf_checkpoint, "adjacent_pairs", lambda rows, heads: rows)
    c = compare_with_transformers(checkpoints["llama"], write(checkpoints["llama"]), PROMPT,
                                  NEW_TOKENS)
    assert c["diff"] > 1e-2 * c["scale"]


def test_llamacpp_greedy_ids_at_smollm_shape(tmp_path):
    """SmolLM-135M's shape (bench/llm_generation.py's 135M, random weights)."""
    pytest.importorskip("llama_cpp")
    from bench.llamacpp_runner import compare_with_transformers
    from bench.llm_generation import SHAPES
    checkpoint = save_checkpoint("llama", tmp_path / "smollm", **SHAPES["135M"])
    c = compare_with_transformers(checkpoint, write(checkpoint), PROMPT, NEW_TOKENS)
    assert c["ids"] == c["expected"]
    assert c["diff"] < 1e-3 * c["scale"]
