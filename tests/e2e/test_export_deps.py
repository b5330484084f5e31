"""The export depends on exactly the Python files it imported (<model>.deps): a helper
from another package re-exports on an edit, an unrelated file of the factory's package
does not. Only the program is built here (scons <path>.pte), so no compile runs."""

import os
import shutil
import subprocess

import pytest

from codegen import build_layout
from tests.conftest import REPO, SCONS

BUILD = build_layout.tree("test-deps")

FACTORY = """import torch

from helpers.scaling import scale


def make():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 3)).eval(), (scale(torch.randn(2, 4)),)
"""


def _export(tmp_path) -> str:
    manifest = tmp_path / "models" / "deps_model.yaml"
    pte = os.path.join(BUILD, "host", "deps_model", "deps_model.pte")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path / "lib")
    proc = subprocess.run([SCONS, f"model={manifest}", "build_dir=" + BUILD, pte], cwd=REPO,
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.usefixtures("no_build_cache")  # an earlier run's export would come from the cache
def test_export_depends_on_what_it_imported(tmp_path):
    # A program left by an earlier run (other tmp paths, the same manifest text) would be
    # up to date: start from an empty build directory.
    shutil.rmtree(os.path.join(REPO, BUILD), ignore_errors=True)
    models, helpers = tmp_path / "models", tmp_path / "lib" / "helpers"
    models.mkdir()
    helpers.mkdir(parents=True)
    (models / "deps_factory.py").write_text(FACTORY)
    (models / "unrelated.py").write_text("X = 1\n")
    (helpers / "__init__.py").write_text("")
    (helpers / "scaling.py").write_text("def scale(x):\n    return x * 2\n")
    (models / "deps_model.yaml").write_text("description: x\nfactory: deps_factory:make\n")

    assert "exporting deps_model" in _export(tmp_path)
    with open(os.path.join(REPO, BUILD, "host", "deps_model", "deps_model.deps")) as f:
        listed = [line.partition("\t")[0] for line in f.read().splitlines()]
    assert str(helpers / "scaling.py") in listed and str(models / "deps_factory.py") in listed
    assert str(models / "unrelated.py") not in listed
    assert "exporter/export.py" in listed and not any("site-packages" in p for p in listed)
    assert "exporting" not in _export(tmp_path)

    # An edit beside the factory that the export never imported: nothing to do.
    (models / "unrelated.py").write_text("X = 2\n")
    assert "exporting" not in _export(tmp_path)
    # The helper from another package is a dependency, as is the factory itself.
    (helpers / "scaling.py").write_text("def scale(x):\n    return x * 3\n")
    assert "exporting deps_model" in _export(tmp_path)
    (models / "deps_factory.py").write_text(FACTORY.replace("(4, 3)", "(4, 5)"))
    assert "exporting deps_model" in _export(tmp_path)
