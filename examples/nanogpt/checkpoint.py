"""GPT-2-layout checkpoint file -> our GPT (examples/nanogpt/model.py), config from shapes.

    python -m examples.nanogpt.checkpoint PATH [--n-head N]   # prints the inferred config

Reads a torch state_dict saved with torch.save, either bare or as nanoGPT's
{"model": state_dict, "model_args": {...}}. Names may be HF GPT2LMHeadModel's
(`transformer.h.0.attn.c_attn.weight`, Conv1D weights stored [in, out]) or nanoGPT's
(the same names, nn.Linear weights [out, in], possibly prefixed `_orig_mod.` by
torch.compile); our own state_dicts (no `transformer.`) load too. The layout is told
from the shape of c_attn (square weights cannot tell). n_head is not in any shape: it
comes from the argument, the file's model_args, or a config.json beside the file.

Every problem raises CheckpointError naming the file and the key as the file spells it.
"""

import argparse
import dataclasses
import json
import os
import re
import sys

import torch

from examples.nanogpt.model import GPT, GPTConfig

# Weights that nn.Linear stores [out, in] and HF's Conv1D stores [in, out].
_PROJECTIONS = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight",
                "mlp.c_proj.weight")
# Buffers some checkpoints carry (causal masks); the model builds its mask in the graph.
_IGNORED = re.compile(r"^h\.\d+\.attn\.(bias|masked_bias)$")
_LAYER = re.compile(r"^h\.(\d+)\.")


class CheckpointError(Exception):
    """A checkpoint that does not fit the GPT; the message names the file and the key."""


def _read(path: str):
    if not os.path.isfile(path):
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for a file it cannot read
        raise CheckpointError(f"{path}: not a torch checkpoint ({type(e).__name__}: {e})") from None
    args = {}
    if isinstance(data, dict) and isinstance(data.get("model"), dict):
        args = data.get("model_args") or {}
        data = data["model"]
    if not isinstance(data, dict) or not data:
        raise CheckpointError(f"{path}: expected a state_dict (name -> tensor) or "
                              "{'model': state_dict, ...}")
    for key, value in data.items():
        if not isinstance(value, torch.Tensor):
            raise CheckpointError(f"{path}: entry '{key}' is a {type(value).__name__}, "
                                  "not a tensor")
    return data, args


def _canonical(key: str) -> str:
    """Our model's name for a checkpoint key: without `_orig_mod.` and `transformer.`."""
    for prefix in ("_orig_mod.", "transformer."):
        if key.startswith(prefix):
            key = key[len(prefix):]
    return key


def _n_head(path: str, n_head, args: dict) -> int:
    if n_head is None:
        n_head = args.get("n_head")
    config_path = os.path.join(os.path.dirname(path), "config.json")
    if n_head is None and os.path.isfile(config_path):
        with open(config_path) as f:
            n_head = json.load(f).get("n_head")
    if n_head is None:
        raise CheckpointError(f"{path}: the number of heads is not in any weight's shape; "
                              "pass n_head, or put a config.json with \"n_head\" beside it")
    return int(n_head)


def _gelu(path: str, transposed: bool, args: dict) -> str:
    config_path = os.path.join(os.path.dirname(path), "config.json")
    if "gelu_approximate" in args:
        return args["gelu_approximate"]
    if os.path.isfile(config_path):
        with open(config_path) as f:
            activation = json.load(f).get("activation_function")
        if activation is not None:
            return "none" if activation == "gelu" else "tanh"
    # GPT-2 (HF) uses the tanh approximation, nanoGPT the exact GELU.
    return "tanh" if transposed else "none"


def infer_config(path: str, state: dict, args: dict, n_head=None) -> tuple[GPTConfig, bool]:
    """The GPTConfig the weights of `state` (canonical names) fit, and whether the
    projections are stored transposed (HF Conv1D)."""
    for needed in ("wte.weight", "wpe.weight", "h.0.attn.c_attn.weight"):
        if needed not in state:
            raise CheckpointError(f"{path}: missing '{needed}' (or 'transformer.{needed}'); "
                                  "is this a GPT-2-layout checkpoint?")
    vocab_size, n_embd = state["wte.weight"].shape
    block_size = state["wpe.weight"].shape[0]
    c_attn = tuple(state["h.0.attn.c_attn.weight"].shape)
    if c_attn not in ((n_embd, 3 * n_embd), (3 * n_embd, n_embd)):
        raise CheckpointError(f"{path}: h.0.attn.c_attn.weight has shape {list(c_attn)}; "
                              f"with n_embd {n_embd} (from wte) it must be [{n_embd}, "
                              f"{3 * n_embd}] (Conv1D) or [{3 * n_embd}, {n_embd}] (Linear)")
    transposed = c_attn == (n_embd, 3 * n_embd)
    layers = sorted({int(m.group(1)) for k in state if (m := _LAYER.match(k))})
    if layers != list(range(len(layers))):
        missing = next(i for i in range(len(layers)) if i not in layers)
        raise CheckpointError(f"{path}: layers {layers} are not numbered 0..n-1: "
                              f"no h.{missing}.* weights")
    heads = _n_head(path, n_head, args)
    if heads <= 0 or n_embd % heads:
        raise CheckpointError(f"{path}: n_head {heads} does not divide n_embd {n_embd}")
    config = GPTConfig(n_layer=len(layers), n_head=heads, n_embd=int(n_embd),
                       vocab_size=int(vocab_size), block_size=int(block_size),
                       bias="h.0.ln_1.bias" in state,
                       gelu_approximate=_gelu(path, transposed, args))
    return config, transposed


def load_checkpoint(path: str, n_head=None) -> GPT:
    """Our GPT (eval mode) with the weights of checkpoint file `path`."""
    raw, args = _read(path)
    original = {}                      # canonical name -> the file's name, for messages
    state = {}
    for key, value in raw.items():
        name = _canonical(key)
        if _IGNORED.match(name):
            continue
        if name in original:
            raise CheckpointError(f"{path}: '{key}' and '{original[name]}' are the same "
                                  "weight; keep one")
        original[name] = key
        state[name] = value
    config, transposed = infer_config(path, state, args, n_head)
    model = GPT(config).eval()
    prefix = original["wte.weight"][:-len("wte.weight")]   # as the file spells names
    wanted = {k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}

    for name in state:
        if name not in wanted and name != "lm_head.weight":
            raise CheckpointError(f"{path}: unexpected key '{original[name]}'; a GPT with "
                                  f"{config.n_layer} layers has no such weight")
    loaded = {}
    for name, like in wanted.items():
        if name not in state:
            raise CheckpointError(f"{path}: missing key '{prefix}{name}' (a GPT with "
                                  f"{config.n_layer} layers, n_embd {config.n_embd}, "
                                  f"bias={config.bias} needs it)")
        flip = transposed and name.endswith(_PROJECTIONS)
        value = state[name].t() if flip else state[name]
        if value.shape != like.shape:
            want = list(like.t().shape if flip else like.shape)
            raise CheckpointError(f"{path}: '{original[name]}' has shape "
                                  f"{list(state[name].shape)}; expected {want}"
                                  + (" (Conv1D [in, out])" if flip else ""))
        loaded[name] = value.to(like.dtype).contiguous()
    if "lm_head.weight" in state and not torch.equal(state["lm_head.weight"], state["wte.weight"]):
        raise CheckpointError(f"{path}: '{original['lm_head.weight']}' differs from the token "
                              "embedding; this GPT ties lm_head to wte")
    loaded["lm_head.weight"] = loaded["wte.weight"]
    model.load_state_dict(loaded, strict=True)
    return model


def save_checkpoint(model: GPT, path: str) -> None:
    """Writes `model` as {"model": state_dict, "model_args": config} (our own names)."""
    state = {k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}
    torch.save({"model": state, "model_args": dataclasses.asdict(model.config)}, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.nanogpt.checkpoint",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("path")
    parser.add_argument("--n-head", type=int)
    args = parser.parse_args(argv)
    try:
        model = load_checkpoint(args.path, args.n_head)
    except CheckpointError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    params = sum(p.numel() for p in model.parameters())
    print(f"{args.path}: {model.config} ({params:,} parameters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
