"""A GPT-2 checkpoint file (HF layout: `transformer.` names, Conv1D weights [in, out])
builds, through examples/nanogpt/checkpoint.py and a manifest of the user's, into a
program with a KV cache that the llm app generates from as torch eager does."""

import os

import pytest
import torch

from codegen import build_layout
from examples.nanogpt.model import make_gpt
from tests.conftest import REPO, passed_check, run_scons
from tests.llm.app import LlmApp, split_ids

BUILD = build_layout.tree("test-gpt2-checkpoint")
BLOCK = 32
PROJECTIONS = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight",
               "mlp.c_proj.weight")


def save_gpt2_checkpoint(path: str) -> torch.nn.Module:
    """A random GPT (the tokenizer's 512 ids) saved as GPT2LMHeadModel names it."""
    gpt, _ = make_gpt(seed=3, n_layer=2, n_head=2, n_embd=32, vocab_size=512,
                      block_size=BLOCK)
    for p in gpt.parameters():      # weights large enough that tokens differ
        p.data *= 6
    state = {}
    for key, value in gpt.state_dict().items():
        name = key if key.startswith("lm_head") else "transformer." + key
        state[name] = value.t().contiguous() if key.endswith(PROJECTIONS) else value.clone()
    torch.save(state, path)
    return gpt.eval()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpt2")
    checkpoint = str(folder / "gpt2.pt")
    gpt = save_gpt2_checkpoint(checkpoint)
    manifest = folder / "my_gpt2.yaml"
    manifest.write_text(
        "description: a GPT-2 checkpoint with a KV cache\n"
        "factory: examples.nanogpt.kv_cache:make_cached_checkpoint\n"
        f"factory_args: {{path: {checkpoint}, n_head: 2}}\n"
        f"dynamic_dims:\n  - {{input: 0, dim: 1, name: T, min: 1, max: {BLOCK}}}\n"
        f"  - {{input: 1, dim: 0, name: T, min: 1, max: {BLOCK}}}\n"
        f"constant_methods: {{get_max_seq_len: {BLOCK}, get_vocab_size: 512, "
        "get_eos_ids: [511]}\n"
        "kernel_libraries: [kernels/llm/llm_optimized.yaml, kernels/llm/llm_portable.yaml]\n"
        "tolerance: {atol: 1.0e-4, rtol: 1.0e-4}\n"
        "app: {name: llm, sources: [apps/llm/*.cpp, apps/llm/tokenizer/*.cpp]}\n")
    run_scons(f"model={manifest}", "run=1", "build_dir=" + BUILD)
    out = os.path.join(REPO, build_layout.output_dir(["my_gpt2"], build_dir=BUILD))
    # The check's report, not the build's output: an earlier run's check of the same
    # program bytes stays up to date and does not print again.
    passed_check(out, "my_gpt2")
    made = build_layout.outputs(out)
    return gpt, LlmApp(made.apps["my_gpt2"], made.programs["my_gpt2"])


def test_a_gpt2_checkpoint_generates_as_eager_with_the_cache(built):
    gpt, app = built
    prompt = app.run("--encode", "In the beginning", program=False)
    assert prompt.returncode == 0, prompt.stderr.decode()
    tokens = [int(t) for t in prompt.stdout.split()]
    proc = app.run("--prompt", "In the beginning", "--greedy", "--print-ids", "--max-tokens", "20")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "KV cache" in proc.stderr.decode()
    generated = split_ids(proc.stdout.decode())[1]
    want = []
    with torch.no_grad():
        for _ in range(20):
            want.append(int(gpt(torch.tensor([tokens + want]))[0, -1].argmax()))
            if want[-1] == 511:
                break
    assert generated == want and len(set(generated)) > 2
