"""tailor/llm in torch eager against transformers, on tiny random checkpoints of every
supported architecture saved with save_pretrained (tests/llm/checkpoints.py): the logits
of a prompt and greedy generation with the cache, past each sliding window; and the
errors a checkpoint or an `llm:` manifest Tailor cannot export gives."""

import json
import os

import pytest
import torch

from exporter.manifest import parse_manifest
from tailor.llm.config import LlmError, read_config
from tailor.llm.decoder import Decoder
from tailor.llm.export import eager_greedy, make_decoder
from tailor.llm.weights import load_weights
from tests.llm.checkpoints import ARCHITECTURES, greedy, load_transformers, save_checkpoint

PROMPT = [5, 17, 200, 33, 9, 41, 77, 3, 12]
NEW_TOKENS = 24  # past every test checkpoint's sliding window


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("checkpoints")
    return {name: save_checkpoint(name, folder / name) for name in ARCHITECTURES}


@pytest.mark.parametrize("name", list(ARCHITECTURES))
def test_decoder_equals_transformers(checkpoints, name):
    reference = load_transformers(checkpoints[name])
    decoder = make_decoder(checkpoints[name], max_seq_len=64)
    with torch.no_grad():
        want = reference(torch.tensor([PROMPT])).logits[:, -1:]
        got = decoder(torch.tensor([PROMPT]), torch.arange(len(PROMPT)))
    assert want.abs().max() > 1.0  # not near-uniform logits, where any order would pass
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    # A fresh decoder: the cache starts empty.
    assert eager_greedy(make_decoder(checkpoints[name], 64), PROMPT, NEW_TOKENS) == greedy(
        reference, PROMPT, NEW_TOKENS)


def test_config_reads_each_feature(checkpoints):
    """The features each test checkpoint is there to exercise are read from its config."""
    configs = {name: read_config(path) for name, path in checkpoints.items()}
    assert configs["llama"].rope.scaling == "llama3" and configs["llama"].kv_heads == 2
    assert configs["mistral"].sliding_windows == (5, 5) and configs["mistral"].head_dim == 24
    assert configs["qwen2"].sliding_windows == (0, 6) and configs["qwen2"].qkv_bias
    assert configs["phi3"].rope.fraction == 0.5 and configs["phi3"].eos_ids == (2, 3)
    assert configs["gemma"].kv_heads == 1 and configs["gemma"].tied_embeddings
    assert configs["gpt2"].rope is None and configs["gpt2"].norm == "layer"
    assert configs["gpt_neox"].parallel_residual and configs["gpt_neox"].rope.fraction == 0.25


def test_sliding_window_changes_generation(checkpoints):
    """Without its window Mistral's greedy ids differ: the equality above depends on it."""
    config = read_config(checkpoints["mistral"])
    unwindowed = Decoder(config, load_weights(config), 64).eval()
    for layer in unwindowed.layers:
        layer.window = 0
    reference = load_transformers(checkpoints["mistral"])
    assert eager_greedy(unwindowed, PROMPT, NEW_TOKENS) != greedy(reference, PROMPT,
                                                                    NEW_TOKENS)


def test_cache_keeps_kv_heads_and_tied_table_once(checkpoints):
    decoder = make_decoder(checkpoints["gemma"], max_seq_len=32)
    config = decoder.config
    assert decoder.k_cache_0.shape == (1, 32, 1, config.head_dim)  # 1 kv head, not 4
    assert decoder.lm_head.weight is decoder.embed.weight


def _edit_config(path: str, **changes) -> None:
    with open(os.path.join(path, "config.json")) as f:
        data = json.load(f)
    data.update(changes)
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(data, f)


def test_unsupported_checkpoints_give_one_clear_error(tmp_path):
    path = save_checkpoint("llama", tmp_path / "ckpt")
    _edit_config(path, model_type="bert")
    with pytest.raises(LlmError, match=r"config\.json: model_type: architecture 'bert' is "
                                       r"not supported; supported: Llama \(llama\)"):
        read_config(path)
    _edit_config(path, model_type="llama", rope_parameters={"rope_type": "yarn",
                                                            "rope_theta": 1e4})
    with pytest.raises(LlmError, match="RoPE scaling 'yarn' is not supported"):
        read_config(path)
    with pytest.raises(LlmError, match=r"empty.*config\.json: no such file"):
        read_config(str(tmp_path / "empty"))


def test_unused_tensors_are_an_error(tmp_path):
    """A checkpoint with a tensor the decoder would not use is a variant it would run
    wrongly: refused, not silently dropped."""
    path = save_checkpoint("qwen2", tmp_path / "ckpt")
    _edit_config(path, model_type="llama", attention_bias=False)  # drops Qwen2's biases
    with pytest.raises(LlmError, match=r"tensors are not used by the decoder \(e\.g\. "
                                       r"model\.layers\.0\.self_attn\.k_proj\.bias"):
        load_weights(read_config(path))


def test_llm_manifest_key(checkpoints):
    path = checkpoints["phi3"]
    manifest = parse_manifest("m.yaml", {"description": "d", "quantize": "8da4w",
                                         "llm": {"checkpoint": path, "max_seq_len": 48}})
    assert manifest.factory == "tailor.llm.export:make_llm"
    assert dict(manifest.factory_args) == {"checkpoint": path, "max_seq_len": 48}
    assert dict(manifest.constant_methods) == {"get_max_seq_len": 48, "get_vocab_size": 320,
                                               "get_bos_id": 1, "get_eos_ids": [2, 3]}
    assert [(d.input, d.dim, d.min, d.max) for d in manifest.dynamic_dims] == [
        (0, 1, 1, 48), (1, 0, 1, 48)]
    assert manifest.app_name == "llm" and manifest.llm_checkpoint == path
    assert os.path.join(path, "model.safetensors") in manifest.data_files
    assert manifest.quantize is not None
    for data, message in [
            ({"llm": {"checkpoint": path}, "factory": "a:b"}, "factory: a manifest with llm:"),
            ({"llm": {"checkpoint": path, "max_seq_len": 4096}}, "max_seq_len must be an "
                                                                 "integer in 1..256"),
            ({"llm": {"checkpoint": path, "dtype": "bfloat16"}}, "dtype 'bfloat16' is not"),
            ({"llm": {"checkpoint": path + "-missing"}}, "is not a directory"),
            ({"llm": {"path": path}}, "llm: unknown key 'path'")]:
        with pytest.raises(LlmError.__mro__[1], match=message):
            parse_manifest("m.yaml", {"description": "d", **data})


def test_checkpoint_without_bos_or_eos_gets_no_method_for_them(tmp_path):
    path = save_checkpoint("llama", tmp_path / "ckpt", bos_token_id=None, eos_token_id=None)
    manifest = parse_manifest("m.yaml", {"description": "d", "llm": {"checkpoint": path}})
    assert [name for name, _ in manifest.constant_methods] == ["get_max_seq_len",
                                                               "get_vocab_size"]
