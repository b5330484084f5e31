"""examples/nanogpt/checkpoint.py on checkpoints made here: HF GPT2LMHeadModel names with
Conv1D [in, out] weights, nanoGPT names with nn.Linear [out, in] weights, and ours.

The loaded model's logits are compared with a forward pass written directly over the
checkpoint's tensors, so a weight put in the wrong place (or not transposed) shows."""

import json
import math

import pytest
import torch
from torch.nn import functional as F

from examples.nanogpt.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from examples.nanogpt.model import make_gpt

N_LAYER, N_HEAD, N_EMBD, VOCAB, BLOCK = 2, 2, 16, 37, 12


def make_state(transposed: bool, seed: int = 0) -> dict:
    """A GPT-2 state_dict with random weights; projections [in, out] when `transposed`."""
    g = torch.Generator().manual_seed(seed)

    def rand(*shape):
        return torch.randn(*shape, generator=g) * 0.3

    def proj(n_in, n_out):
        return rand(n_in, n_out) if transposed else rand(n_out, n_in)

    C = N_EMBD
    sd = {"transformer.wte.weight": rand(VOCAB, C), "transformer.wpe.weight": rand(BLOCK, C)}
    for i in range(N_LAYER):
        p = f"transformer.h.{i}."
        sd.update({
            p + "ln_1.weight": 1 + rand(C), p + "ln_1.bias": rand(C),
            p + "attn.c_attn.weight": proj(C, 3 * C), p + "attn.c_attn.bias": rand(3 * C),
            p + "attn.c_proj.weight": proj(C, C), p + "attn.c_proj.bias": rand(C),
            p + "ln_2.weight": 1 + rand(C), p + "ln_2.bias": rand(C),
            p + "mlp.c_fc.weight": proj(C, 4 * C), p + "mlp.c_fc.bias": rand(4 * C),
            p + "mlp.c_proj.weight": proj(4 * C, C), p + "mlp.c_proj.bias": rand(C),
            # the causal-mask buffer both HF and nanoGPT (without flash) save
            p + "attn.bias": torch.tril(torch.ones(BLOCK, BLOCK)).view(1, 1, BLOCK, BLOCK),
        })
    sd["transformer.ln_f.weight"] = 1 + rand(C)
    sd["transformer.ln_f.bias"] = rand(C)
    sd["lm_head.weight"] = sd["transformer.wte.weight"]
    return sd


def reference_logits(sd: dict, idx: torch.Tensor, transposed: bool, gelu: str) -> torch.Tensor:
    """GPT-2's forward pass, written over the raw checkpoint tensors."""
    def linear(x, name):
        w, b = sd[name + ".weight"], sd[name + ".bias"]
        return x @ w + b if transposed else x @ w.t() + b

    def norm(x, name):
        return F.layer_norm(x, (N_EMBD,), sd[name + ".weight"], sd[name + ".bias"], 1e-5)

    T = idx.shape[1]
    x = sd["transformer.wte.weight"][idx] + sd["transformer.wpe.weight"][:T]
    hd = N_EMBD // N_HEAD
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for i in range(N_LAYER):
        p = f"transformer.h.{i}."
        q, k, v = linear(norm(x, p + "ln_1"), p + "attn.c_attn").split(N_EMBD, dim=2)
        q, k, v = (t.view(1, T, N_HEAD, hd).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hd)
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(1, T, N_EMBD)
        x = x + linear(y, p + "attn.c_proj")
        h = F.gelu(linear(norm(x, p + "ln_2"), p + "mlp.c_fc"), approximate=gelu)
        x = x + linear(h, p + "mlp.c_proj")
    return norm(x, "transformer.ln_f") @ sd["transformer.wte.weight"].t()


def tokens(n: int = BLOCK) -> torch.Tensor:
    return torch.randint(0, VOCAB, (1, n), generator=torch.Generator().manual_seed(5))


def save_hf(tmp_path, sd: dict, activation: str = "gelu_new"):
    torch.save(sd, tmp_path / "pytorch_model.bin")
    with open(tmp_path / "config.json", "w") as f:
        json.dump({"n_head": N_HEAD, "activation_function": activation}, f)
    return str(tmp_path / "pytorch_model.bin")


def save_nanogpt(tmp_path, sd: dict) -> str:
    """nanoGPT's ckpt.pt after torch.compile: `_orig_mod.` names, n_head in model_args."""
    path = tmp_path / "ckpt.pt"
    torch.save({"model": {"_orig_mod." + k: v for k, v in sd.items()},
                "model_args": {"n_layer": N_LAYER, "n_head": N_HEAD, "n_embd": N_EMBD,
                               "block_size": BLOCK, "bias": True, "vocab_size": VOCAB},
                "iter_num": 100, "best_val_loss": 1.5}, path)
    return str(path)


def test_hf_layout_loads_with_conv1d_weights_transposed(tmp_path):
    sd = make_state(transposed=True)
    model = load_checkpoint(save_hf(tmp_path, sd))
    cfg = model.config
    assert (cfg.n_layer, cfg.n_head, cfg.n_embd, cfg.vocab_size, cfg.block_size) == \
        (N_LAYER, N_HEAD, N_EMBD, VOCAB, BLOCK)
    assert cfg.gelu_approximate == "tanh"  # GPT-2's gelu_new
    idx = tokens()
    with torch.no_grad():
        torch.testing.assert_close(model(idx), reference_logits(sd, idx, True, "tanh"),
                                   atol=1e-5, rtol=1e-5)


def test_nanogpt_layout_loads_with_linear_weights_and_compile_prefix(tmp_path):
    sd = make_state(transposed=False, seed=1)
    model = load_checkpoint(save_nanogpt(tmp_path, sd))
    assert model.config.gelu_approximate == "none"
    idx = tokens(7)
    with torch.no_grad():
        torch.testing.assert_close(model(idx), reference_logits(sd, idx, False, "none"),
                                   atol=1e-5, rtol=1e-5)


def test_the_two_layouts_of_the_same_weights_give_the_same_model(tmp_path):
    linear = make_state(transposed=False, seed=2)
    conv = {k: (v.t() if k.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight")) else v)
            for k, v in linear.items()}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = load_checkpoint(save_nanogpt(tmp_path / "a", linear))
    b = load_checkpoint(save_hf(tmp_path / "b", conv, activation="gelu"))
    idx = tokens()
    with torch.no_grad():
        torch.testing.assert_close(a(idx), b(idx), atol=1e-6, rtol=1e-6)


def test_own_checkpoint_round_trips(tmp_path):
    model, (idx,) = make_gpt(seed=3, n_layer=1, n_head=2, n_embd=16, vocab_size=20,
                             block_size=8, gelu_approximate="tanh")
    save_checkpoint(model, str(tmp_path / "model.pt"))
    loaded = load_checkpoint(str(tmp_path / "model.pt"))
    assert loaded.config == model.config
    with torch.no_grad():
        torch.testing.assert_close(loaded(idx), model(idx), atol=0, rtol=0)


def test_missing_key_names_the_file_and_the_key(tmp_path):
    sd = make_state(transposed=True)
    del sd["transformer.h.1.mlp.c_fc.weight"]
    path = save_hf(tmp_path, sd)
    with pytest.raises(CheckpointError, match="pytorch_model.bin: missing key "
                                              "'transformer.h.1.mlp.c_fc.weight'"):
        load_checkpoint(path)


def test_mismatched_shape_names_the_key(tmp_path):
    sd = make_state(transposed=False)
    sd["transformer.h.0.mlp.c_proj.weight"] = torch.zeros(N_EMBD, 3 * N_EMBD)
    path = save_nanogpt(tmp_path, sd)
    with pytest.raises(CheckpointError, match=r"ckpt.pt: '_orig_mod.transformer.h.0.mlp.c_proj"
                                              r".weight' has shape \[16, 48\]; expected \[16, 64\]"):
        load_checkpoint(path)


def test_unexpected_key_is_rejected(tmp_path):
    sd = make_state(transposed=True)
    sd["transformer.h.0.attn.rotary.weight"] = torch.zeros(3)
    with pytest.raises(CheckpointError, match="unexpected key 'transformer.h.0.attn.rotary.weight'"):
        load_checkpoint(save_hf(tmp_path, sd))


def test_untied_lm_head_is_rejected(tmp_path):
    sd = make_state(transposed=True)
    sd["lm_head.weight"] = sd["lm_head.weight"] + 1
    with pytest.raises(CheckpointError, match="'lm_head.weight' differs from the token embedding"):
        load_checkpoint(save_hf(tmp_path, sd))


def test_head_count_must_come_from_somewhere(tmp_path):
    torch.save(make_state(transposed=True), tmp_path / "weights.pt")
    with pytest.raises(CheckpointError, match="weights.pt: the number of heads"):
        load_checkpoint(str(tmp_path / "weights.pt"))
    assert load_checkpoint(str(tmp_path / "weights.pt"), n_head=N_HEAD).config.n_head == N_HEAD


def test_not_a_checkpoint(tmp_path):
    (tmp_path / "junk.pt").write_bytes(b"not a zip file")
    with pytest.raises(CheckpointError, match="junk.pt: not a torch checkpoint"):
        load_checkpoint(str(tmp_path / "junk.pt"))
    with pytest.raises(CheckpointError, match="nothing.pt: no such checkpoint file"):
        load_checkpoint(str(tmp_path / "nothing.pt"))
