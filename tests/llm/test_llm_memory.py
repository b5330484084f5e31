"""Weights mapped, not copied: the llm app maps a program (runtime/loader/mmap_data_loader)
and its kernels read the weights where they lie in the mapping, so after loading a
program and generating, the process holds the program's bytes once, as pages of the
file, beside the memory planned for its method (KV cache and activations):

    peak resident <= 1.1 x (program + planned memory)

(a copy of the weights would make it about twice the program). Measured with the app's
--memory line on a GPT of 60 MB of fp32 weights, exported with the demo GPT's operators so
the demo's app (conftest.py's build) runs it."""

import pytest

from exporter.export import export
from exporter.manifest import dynamic_shapes, load_manifest, load_model
from tests.llm.app import LlmApp, memory_figures

MANIFEST = """\
description: a GPT of 15M parameters with a static KV cache (60 MB of fp32 weights)
factory: examples.nanogpt.kv_cache:make_cached_gpt
factory_args: {n_layer: 4, n_head: 8, n_embd: 512, vocab_size: 4096, block_size: 64}
dynamic_dims:
  - {input: 0, dim: 1, name: T, min: 1, max: 64}
  - {input: 1, dim: 0, name: T, min: 1, max: 64}
"""


@pytest.fixture(scope="module")
def mid_size_program(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("memory")
    (folder / "gpt_60mb.yaml").write_text(MANIFEST)
    manifest = load_manifest(str(folder / "gpt_60mb.yaml"))
    module, inputs = load_model(manifest)
    path = str(folder / "gpt_60mb.pte")
    export(module, inputs, dynamic_shapes(manifest, inputs)).save(path)
    return path


def test_the_program_is_resident_once_as_mapped_pages(nanogpt, mid_size_program):
    app = LlmApp(nanogpt.app, mid_size_program)
    proc = app.run("--prompt-ids", " ".join(str(i * 37 % 4096) for i in range(24)),
                   "--max-tokens", "8", "--greedy", "--memory", tokenizer=None)
    stderr = proc.stderr.decode()
    assert proc.returncode == 0, stderr
    m = memory_figures(stderr)
    assert m and m["program"] > 55, stderr
    assert m["peak"] <= 1.1 * (m["program"] + m["planned"]), stderr
    # The weights are resident once: as file pages read in place, or as the copy method
    # load packed for its kernel, whose file pages the loader gave back (15% of the
    # program's size allowed for the app and its libraries, file pages too).
    assert m["mapped"] + m["allocated"] <= 1.15 * m["program"] + (m["planned"] - m["packed"]), \
        stderr
    assert m["allocated"] <= m["planned"] + 0.05 * m["program"], stderr
