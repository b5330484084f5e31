"""python -m exporter: the .pte, the check files, the progress lines and the errors."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from tests.exporter.conftest import REPO
from exporter.__main__ import main
from exporter.serialize import deserialize

MLP_YAML = os.path.join(REPO, "manifests", "models", "mlp.yaml")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("build") / "host" / "mlp" / "mlp.pte"
    # Stale check files from an export with more inputs must go away.
    io_dir = out.parent / "mlp_io"
    io_dir.mkdir(parents=True)
    (io_dir / "input_7.npy").write_bytes(b"stale")
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["--manifest", MLP_YAML, "--out", str(out)]) == 0
    return out, buf.getvalue()


def test_progress_lines(exported):
    out, text = exported
    lines = text.splitlines()
    assert lines[0] == "exporting mlp (examples.mlp.model:make_mlp)"
    assert "  torch.export: 5 nodes; folded 2 constant node(s)" in lines
    assert any(ln.startswith("  memory plan: 1 arena, ") and "(no reuse: " in ln
               for ln in lines)
    size = os.path.getsize(out)
    assert any(ln.startswith(f"  wrote {out} ({size:,} bytes, constants 2,") for ln in lines)


def test_pte_and_check_files(exported):
    from examples.mlp.model import make_mlp
    out, _ = exported
    program, segment = deserialize(out.read_bytes())
    assert len(program["methods"][0]["instructions"]) == 3     # addmm, relu, addmm
    io_dir = out.parent / "mlp_io"
    assert sorted(p.name for p in io_dir.iterdir()) == ["expected_0.npy", "input_0.npy"]
    module, (x,) = make_mlp()
    x_saved = np.load(io_dir / "input_0.npy")
    np.testing.assert_array_equal(x_saved, x.numpy())
    with torch.no_grad():
        want = module(torch.from_numpy(x_saved)).numpy()
    expected = np.load(io_dir / "expected_0.npy")
    assert expected.dtype == np.float32 and expected.shape == (4, 4)
    np.testing.assert_array_equal(expected, want)


def test_print_ops(capsys):
    assert main(["--manifest", MLP_YAML, "--print-ops"]) == 0
    text = capsys.readouterr().out
    assert "aten::addmm.out" in text and "Float;0|Float;0,1|Float;0,1|Float;0,1  x2" in text
    assert "aten::relu.out" in text and "aten::permute_copy.out" not in text


def test_user_error_exits_1_without_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("description: x\nfactory: examples.mlp.model:make_mlp\nbatch: 3\n")
    proc = subprocess.run([sys.executable, "-m", "exporter", "--manifest", str(bad),
                           "--out", str(tmp_path / "bad.pte")],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {bad}: unknown key 'batch'")
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "bad.pte").exists()


def test_needs_out_or_print_ops(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--manifest", MLP_YAML])
    assert e.value.code == 2
