"""scaled_dot_product_attention's softmax as one operator (exporter/safe_softmax.py):
tailor_nn::safe_softmax replaces core ATen's six calls, and its kernels give what eager
gives, rows a mask removed completely (0) included: a real build of the host runtime
(the portable kernel and every CPU level run the op cases of tests/ops)."""

import os
import subprocess

import numpy as np
import pytest
import torch

from codegen import build_layout
from tests.conftest import REPO, run_scons

BUILD = build_layout.tree("test-attention-softmax")
# 37 keys: rows of scores end off a vector at every width (the kernel's last vector
# overlaps the one before it).
HEADS, QUERIES, KEYS, DIM = 3, 11, 37, 16


class MaskedAttention(torch.nn.Module):
    def forward(self, q, k, v, mask):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def _inputs():
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, HEADS, n, DIM) for n in (QUERIES, KEYS, KEYS))
    mask = torch.rand(1, HEADS, QUERIES, KEYS) > 0.3
    mask[0, 1, 4, :] = False   # a query that sees no key: its output is 0
    mask[0, 2, :, 5:] = False  # a head whose queries see 5 keys
    return q, k, v, mask


@pytest.fixture(scope="module")
def built():
    from exporter.export import export
    inputs = _inputs()
    exported = export(MaskedAttention().eval(), inputs)
    folder = os.path.join(REPO, BUILD)
    os.makedirs(folder, exist_ok=True)
    pte = os.path.join(folder, "attention.pte")
    exported.save(pte)
    for i, x in enumerate(inputs):
        np.save(os.path.join(folder, f"input_{i}.npy"), x.numpy())
    run_scons("model=mlp", f"programs={BUILD}/attention.pte", "build_dir=" + BUILD)
    runner = build_layout.runner(os.path.join(REPO, build_layout.output_dir(
        ["mlp"], [pte], build_dir=BUILD)))
    return exported, runner, folder, inputs


def test_attention_softmax_is_one_operator(built):
    exported = built[0]
    ops = exported.operators
    assert "tailor_nn::safe_softmax.out" in ops
    # (a where stays: the one that turns the Bool mask into -inf scores)
    for chain in ("aten::_softmax.out", "aten::eq.Scalar_out", "aten::any.out",
                  "aten::logical_not.out", "aten::full_like.out"):
        assert chain not in ops, f"{chain} left in {ops}"


def test_masked_attention_matches_eager(built):
    _, runner, folder, inputs = built
    out = os.path.join(folder, "out.npy")
    proc = subprocess.run([runner, os.path.join(folder, "attention.pte"), "--input",
                           *(os.path.join(folder, f"input_{i}.npy") for i in range(4)),
                           "--output", out], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = np.load(out)
    with torch.no_grad():
        want = MaskedAttention()(*inputs).numpy()
    assert not np.isnan(got).any()
    assert np.abs(got[0, 1, 4]).max() == 0      # the query that sees no key
    assert np.abs(want).max() > 0.5
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)
