"""Every supported architecture built through the `llm:` manifest key, as a user would:
a checkpoint directory saved with save_pretrained (random weights, the tokenizer.json of
its family trained on KJV text), a two-line manifest, `scons model=... run=1`.

One build per target holds all seven models in one runtime, and Qwen2's (tied
embeddings) again with `quantize: 8da4w`. Its run=1 self-check is the proof: the
runner's logits against torch eager, then (tailor/llm/selfcheck.py) the llm app's greedy
ids against transformers' generate on the same prompt ids (the quantized model: against
Tailor's decoder quantized the same way, in eager), and the app's tokenizer against
transformers' on Unicode, whitespace and number strings. The tests read the reports and
check the files a user gets."""

import json
import os
import re
import subprocess

import pytest

from codegen import build_layout
from tailor.llm.config import read_config
from tests.conftest import REPO, passed_check, run_scons
from tests.ops import harness
from tests.llm.checkpoints import ARCHITECTURES, save_with_tokenizer

MAX_SEQ_LEN = 48


def _targets() -> list:
    """host always; host-xnnpack with TAILOR_LLM_XNNPACK=1 (.ci/run sets it): the same
    kernels run there (XNNPACK takes no part of these decoders beside the optimized
    library), so it proves the target builds them, at two more minutes."""
    missing = harness.unavailable(harness.XNNPACK) or (
        "" if os.environ.get("TAILOR_LLM_XNNPACK") == "1" else "set TAILOR_LLM_XNNPACK=1")
    return ["host", pytest.param("host-xnnpack", marks=pytest.mark.skipif(
        bool(missing), reason=missing or ""))]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, str]:
    """name -> manifest path, each beside its checkpoint directory."""
    folder = tmp_path_factory.mktemp("llm")
    manifests = {}
    for name in ARCHITECTURES:
        checkpoint = save_with_tokenizer(name, folder / name)
        manifests[name] = str(folder / f"hf_{name}.yaml")
        with open(manifests[name], "w") as f:
            f.write(f"description: a tiny random {name} checkpoint\n"
                    f"llm: {{checkpoint: {checkpoint}, max_seq_len: {MAX_SEQ_LEN}}}\n")
    manifests["qwen2_8da4w"] = str(folder / "hf_qwen2_8da4w.yaml")
    with open(manifests["qwen2_8da4w"], "w") as f:
        f.write(f"description: the tiny qwen2 checkpoint in 8da4w\n"
                f"llm: {{checkpoint: {folder / 'qwen2'}, max_seq_len: {MAX_SEQ_LEN}}}\n"
                "quantize: 8da4w\n")
    return manifests


_built = {}


def _checkpoint(manifest: str) -> str:
    """The checkpoint directory a test manifest names."""
    with open(manifest) as f:
        return f.read().split("checkpoint: ")[1].split(",")[0]


def _build(target: str, checkpoints: dict) -> str:
    """The build directory of all the models on `target`, built once per session."""
    if target not in _built:
        proc = run_scons(f"target={target}", "model=" + ",".join(checkpoints.values()),
                         "run=1")
        # Eight models: a directory named by the first, a count and a digest.
        where = re.search(r"(build/%s/[^/\s`']+)/hf_" % target, proc.stdout)
        assert where, proc.stdout[-3000:]
        _built[target] = os.path.join(REPO, where.group(1))
    return _built[target]


@pytest.mark.parametrize("target", _targets())
@pytest.mark.parametrize("name", list(ARCHITECTURES))
def test_generates_like_transformers(target, name, checkpoints):
    out = _build(target, checkpoints)
    passed_check(out, f"hf_{name}")  # the logits against eager
    with open(build_layout.llm_check_report(out, f"hf_{name}")) as f:
        report = f.read()
    assert "against transformers generate(do_sample=False)" in report, report
    assert "the same " in report and "encode and decode alike" in report, report
    assert report.strip().endswith("llm check passed")


@pytest.mark.parametrize("target", _targets())
def test_a_quantized_tied_decoder_generates_like_its_quantized_eager_model(target, checkpoints):
    """Qwen2's tied table in 8da4w: one int8 table that the embedding's lookup and the
    output projection both read; the runtime's logits and greedy ids are those of the
    same quantized decoder in eager (quantization may change the ids; the runtime may not)."""
    out = _build(target, checkpoints)
    passed_check(out, "hf_qwen2_8da4w")
    with open(build_layout.llm_check_report(out, "hf_qwen2_8da4w")) as f:
        report = f.read()
    assert "against Tailor's decoder quantized (8da4w, group size 32) in torch eager" in report
    assert "the same " in report and report.strip().endswith("llm check passed"), report


@pytest.mark.parametrize("target", _targets())
def test_app_streams_text_with_the_tokenizer_beside_the_program(target, checkpoints):
    """What a user runs after the build: the app finds the tokenizer the build copied
    beside the program, and prints text and its stats."""
    out = _build(target, checkpoints)
    assert os.path.isfile(os.path.join(out, "hf_llama.tokenizer.json"))
    proc = subprocess.run([os.path.join(out, "bin", "llm"), os.path.join(out, "hf_llama.pte"),
                           "--prompt", "And God said", "--max-tokens", "12", "--seed", "3"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip(), proc.stderr
    assert "prefill" in proc.stderr and "tokens/s" in proc.stderr


def test_tied_table_is_stored_once(checkpoints):
    """Gemma's tied embeddings: the program's size is its parameters' once (4 bytes
    each), not with a second copy of the 320 x 64 table."""
    out = _build("host", checkpoints)
    from tailor.llm.export import make_decoder
    decoder = make_decoder(_checkpoint(checkpoints["gemma"]), MAX_SEQ_LEN)
    params = sum(p.numel() * 4 for p in decoder.parameters())
    table = decoder.embed.weight.numel() * 4
    size = os.path.getsize(os.path.join(out, "hf_gemma.pte"))
    assert params < size < params + table // 2


def _forward_ops(out: str, name: str) -> list:
    """The operators of a built program's forward, one per instruction (its debug record)."""
    with open(os.path.join(out, f"hf_{name}.debug.json")) as f:
        methods = json.load(f)["methods"]
    (forward,) = [m for m in methods if m["name"] == "forward"]
    return [i["op"] for i in forward["instructions"]]


def test_each_rms_norm_is_one_operator(checkpoints):
    """An RMSNorm decoder calls llm::rms_norm once a norm (two a layer and the final
    one), not pow, mean, add, rsqrt and two muls; LayerNorm decoders keep aten's."""
    out = _build("host", checkpoints)
    for name in ARCHITECTURES:
        config = read_config(_checkpoint(checkpoints[name]))
        ops = _forward_ops(out, name)
        norms = 2 * config.layers + 1
        if config.norm == "layer":
            assert "llm::rms_norm.out" not in ops, name
            assert ops.count("aten::native_layer_norm.out") == norms, (name, ops)
        else:
            assert ops.count("llm::rms_norm.out") == norms, (name, ops)
            assert not {"aten::rsqrt.out", "aten::pow.Tensor_Scalar_out"} & set(ops), (name, ops)


def test_each_gated_mlp_is_one_operator(checkpoints):
    """A gated MLP calls llm::gated_act once a layer, not a split copy, the activation and
    a mul; an ungated MLP (gpt2, gpt_neox) keeps its aten activation."""
    out = _build("host", checkpoints)
    for name in ARCHITECTURES:
        config = read_config(_checkpoint(checkpoints[name]))
        ops = _forward_ops(out, name)
        if config.gated_mlp:
            assert ops.count("llm::gated_act.out") == config.layers, (name, ops)
            assert not {"aten::sigmoid.out", "aten::silu.out", "aten::gelu.out"} & set(ops), \
                (name, ops)
        else:
            assert "llm::gated_act.out" not in ops, name
            assert ops.count("aten::gelu.out") == config.layers, (name, ops)
