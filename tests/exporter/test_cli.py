"""python -m exporter: the .pte, the check files, the progress lines and the errors."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from tests.exporter.conftest import REPO
from exporter.__main__ import main
from program.pte import read_program

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
    program, segment = read_program(str(out))
    assert len(program.methods[0].instructions) == 3     # addmm, relu, addmm
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


BROKEN_MODELS = '''import torch


class Branchy(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


def branchy():
    return Branchy(), (torch.randn(2, 3),)


def raising(size=3):
    raise ValueError(f"size {size} is not supported")


class Failing(torch.nn.Module):
    def forward(self, x):
        return x @ torch.ones(5, 5)


def failing():
    return Failing(), (torch.randn(2, 3),)
'''


@pytest.mark.parametrize("factory, message", [
    ("raising", "factory '{module}:raising' raised ValueError: size 3 is not "
                "supported (at {src}:16: raise ValueError(f\"size {{size}} is not supported\")); "
                "fix the factory or its factory_args"),
    ("failing", "factory '{module}:failing': the model raised RuntimeError: mat1 and "
                "mat2 shapes cannot be multiplied (2x3 and 5x5) (at {src}:21: return x @ "
                "torch.ones(5, 5)) on its example inputs"),
    ("branchy", "model out: torch.export cannot trace the model: "
                "GuardOnDataDependentSymNode: Could not guard on data-dependent expression"),
])
def test_broken_model_is_one_error_at_the_users_line(tmp_path, monkeypatch, capsys, factory,
                                                      message):
    """A factory that raises, a model that fails on its inputs, a model torch.export
    cannot trace: one line naming the manifest, the factory and the user's source line."""
    module = f"tl_broken_{factory}"  # one module per test: imports are cached
    src = tmp_path / f"{module}.py"
    src.write_text(BROKEN_MODELS)
    monkeypatch.syspath_prepend(str(tmp_path))
    manifest = tmp_path / f"{factory}.yaml"
    manifest.write_text(f"description: x\nfactory: {module}:{factory}\n")
    assert main(["--manifest", str(manifest), "--out", str(tmp_path / "out.pte")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {manifest}: " + message.format(src=src, module=module)), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    if factory == "branchy":
        assert f"(at {src}:6: if x.sum() > 0:)" in err


def test_manifest_with_a_yaml_error_or_a_repeated_key(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("description: x\nfactory: [examples.mlp.model:make_mlp\n")
    assert main(["--manifest", str(bad), "--print-ops"]) == 1
    assert capsys.readouterr().err.startswith(f"error: {bad}:3: not valid YAML: ")
    bad.write_text("description: x\nfactory: examples.mlp.model:make_mlp\ndescription: y\n")
    assert main(["--manifest", str(bad), "--print-ops"]) == 1
    assert capsys.readouterr().err == (f"error: {bad}:3: not valid YAML: key 'description' is "
                                       "given twice (first on line 1); keep one\n")
