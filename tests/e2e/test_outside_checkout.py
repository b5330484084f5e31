"""A model whose factory lives outside the checkout builds: from the manifest's own
directory, and from the user's PYTHONPATH; editing it re-exports."""

import os
import shutil
import subprocess

from codegen import build_layout
from tests.conftest import REPO, SCONS, passed_check

BUILD = build_layout.tree("test-outside")

FACTORY = """import torch


def make(scale=1.0):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.Tanh())
    model[0].weight.data *= scale
    return model.eval(), (torch.randn(3, 6),)
"""


def _scons(*args: str, pythonpath: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run([SCONS, "-j2", *args, "build_dir=" + BUILD], cwd=REPO, env=env,
                          capture_output=True, text=True)


def test_factories_from_the_manifest_directory_and_from_pythonpath(tmp_path):
    # An earlier run's build (other tmp paths, the same manifests) would be up to date:
    # start from an empty build directory. The builds after the first skip the test cache,
    # which could hold an earlier run's exports of the same manifest and factory texts.
    shutil.rmtree(os.path.join(REPO, BUILD), ignore_errors=True)
    beside, elsewhere = tmp_path / "models", tmp_path / "lib"
    (elsewhere / "userpkg").mkdir(parents=True)
    beside.mkdir()
    (beside / "local_model.py").write_text(FACTORY)
    (elsewhere / "userpkg" / "__init__.py").write_text("")
    (elsewhere / "userpkg" / "nets.py").write_text(FACTORY)
    (beside / "local.yaml").write_text("description: beside\nfactory: local_model:make\n")
    (beside / "onpath.yaml").write_text("description: on PYTHONPATH\n"
                                        "factory: userpkg.nets:make\n")
    models = f"model={beside / 'local.yaml'},{beside / 'onpath.yaml'}"
    proc = _scons(models, "run=1", pythonpath=str(elsewhere))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = os.path.join(REPO, build_layout.output_dir(["local", "onpath"], build_dir=BUILD))
    for model in ("local", "onpath"):  # the checks' reports (from the cache, not printed)
        passed_check(out, model)

    # Without PYTHONPATH the second factory is not found: one message saying where to look.
    (beside / "onpath.yaml").write_text("description: on PYTHONPATH\n"
                                        "factory: userpkg.nets:make\nfactory_args: {scale: 2}\n")
    missing = _scons(models, "cache=")
    assert missing.returncode != 0 and "PYTHONPATH" in missing.stdout + missing.stderr

    assert _scons(models, "cache=", pythonpath=str(elsewhere)).returncode == 0

    # An edit of the factory outside the checkout re-exports it, and only it.
    (elsewhere / "userpkg" / "nets.py").write_text(FACTORY.replace("Tanh", "ReLU"))
    again = _scons(models, "run=1", "cache=", pythonpath=str(elsewhere))
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "exporting onpath" in again.stdout and "exporting local" not in again.stdout
