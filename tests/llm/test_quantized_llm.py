"""`quantize:` on an `llm:` model: every large matrix quantized, a tied embedding table
and output projection stored once (one packed int8 table read by both), and the KV
caches' initial value (zeros) stored once for all layers. The program of a tied checkpoint
whose table is a large share of its weights (as in SmolLM-135M) is under a fifth of its
fp32 safetensors. Exported in-process, as `python -m exporter` does; the build and the
app's greedy ids against the quantized decoder in eager are in test_llm_build.py."""

import math
import os

import pytest

from exporter.export import export
from exporter.manifest import dynamic_shapes, load_manifest, load_model
from program.pte import read_program
from tests.llm.checkpoints import save_checkpoint

# A tied Llama at a small scale of SmolLM-135M's proportions (the table a fifth of the
# weights, grouped-query attention, a gated MLP).
SHAPE = dict(vocab_size=2048, hidden_size=128, intermediate_size=352, num_hidden_layers=6,
             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
             tie_word_embeddings=True, bos_token_id=None, eos_token_id=None, pad_token_id=None,
             rope_parameters={"rope_type": "default", "rope_theta": 10000.0})


@pytest.fixture(scope="module")
def quantized(tmp_path_factory):
    """(checkpoint directory, the 8da4w program's path, its Program)."""
    folder = tmp_path_factory.mktemp("tied")
    checkpoint = save_checkpoint("llama", folder / "tied", **SHAPE)
    path = folder / "tied_8da4w.yaml"
    path.write_text(f"description: a tied llama\nllm: {{checkpoint: {checkpoint}, "
                    "max_seq_len: 64}\n"
                    "quantize: 8da4w\n")
    manifest = load_manifest(str(path))
    module, inputs = load_model(manifest)
    program = export(module, inputs, dynamic_shapes(manifest, inputs),
                     constant_methods=dict(manifest.constant_methods),
                     quantize=manifest.quantize)
    out = str(folder / "tied_8da4w.pte")
    program.save(out)
    return checkpoint, out, program


def _constants(path: str) -> dict:
    """offset in the constant segment -> (sizes, dtype, 'constant' or 'initial')."""
    data, _ = read_program(path)
    found = {}
    for value in data.methods[0].values:
        ref = getattr(value, "constant", None) or getattr(value, "initial", None)
        if ref is not None:
            kind = "initial" if value.initial else "constant"
            found.setdefault(ref.offset, []).append((tuple(value.sizes), value.scalar_type, kind))
    return found


def test_the_8da4w_program_is_under_a_fifth_of_the_fp32_checkpoint(quantized):
    checkpoint, path, program = quantized
    weights = os.path.getsize(os.path.join(checkpoint, "model.safetensors"))
    assert os.path.getsize(path) <= 0.2 * weights, os.path.getsize(path) / weights
    report = program.quantization
    assert "lm_head" in report.linears and report.embeddings == ("embed",), report.summary()


def test_the_tied_table_is_one_packed_int8_constant(quantized):
    """The embedding's lookup (tailor_quant::embedding) and the output projection
    (tailor_quant::linear) read one constant: [vocab / 8, hidden * 8] int8 (8 rows of
    hidden bytes a block)."""
    _, path, program = quantized
    assert "tailor_quant::embedding.out" in program.operators
    assert "quantized_decomposed::embedding_byte.out" not in program.operators
    vocab, hidden = SHAPE["vocab_size"], SHAPE["hidden_size"]
    tables = [uses for uses in _constants(path).values()
              if uses[0][0] in ((vocab // 8, hidden * 8), (vocab, hidden))]
    assert len(tables) == 1 and tables[0][0] == ((vocab // 8, hidden * 8), "Char", "constant")


def test_the_caches_start_as_one_block_of_zeros(quantized):
    """Every layer's key and value cache starts from the same stored zeros (the export's
    own eager runs must not leave the example's keys in them)."""
    _, path, _ = quantized
    data, segment = read_program(path)
    starts = [(u, offset) for offset, uses in _constants(path).items() for u in uses
              if u[2] == "initial"]
    assert len(starts) == 2 * SHAPE["num_hidden_layers"]
    offsets = {offset for _, offset in starts}
    assert len(offsets) == 1, starts
    size = math.prod(starts[0][0][0]) * 4
    offset = offsets.pop()
    assert segment[offset:offset + size] == bytes(size)
