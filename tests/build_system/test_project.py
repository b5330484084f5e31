"""Project mode (codegen/roots.py, tailor/project.py): `tailor init`'s layout, manifests
looked up in the project before the package, and what `tailor build` hands SCons (a dry
run: nothing compiles). The wheel installed into a fresh venv: tests/bindings/test_wheel.py."""

import os
import shutil
import subprocess
import sys

import pytest

from codegen import build_layout, roots
from tailor.project import build_parser, init, scons_command
from tests.conftest import REPO

PROJECT_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "project")


def make_project(directory) -> None:
    """`tailor init`, then the files of tests/build_system/project/ and a copy of the
    package's portable library (a project library named like the package's)."""
    init(str(directory))
    shutil.copytree(PROJECT_FILES, str(directory), dirs_exist_ok=True)
    shutil.copy(os.path.join(REPO, "manifests", "kernels", "portable.yaml"),
                os.path.join(str(directory), "manifests", "kernels", "portable.yaml"))


@pytest.fixture
def project(tmp_path, monkeypatch):
    make_project(tmp_path)
    monkeypatch.setenv("TAILOR_PROJECT", str(tmp_path))
    return tmp_path


def test_init_writes_the_layout_once(tmp_path, capsys):
    assert init(str(tmp_path)) == 0
    for kind in ("models", "kernels", "targets"):
        readme = tmp_path / "manifests" / kind / "README.md"
        assert len(readme.read_text().splitlines()) == 1
    assert (tmp_path / ".gitignore").read_text() == build_layout.BUILD_DIR + "/\n"
    (tmp_path / ".gitignore").write_text("mine\n")
    capsys.readouterr()
    init(str(tmp_path))
    assert (tmp_path / ".gitignore").read_text() == "mine\n"  # kept
    assert "nothing written" in capsys.readouterr().out


def test_manifests_are_looked_up_in_the_project_first(project):
    assert roots.in_project_mode()
    package = os.path.join(REPO, "manifests")
    assert roots.find_manifest("kernels", "portable") == str(
        project / "manifests" / "kernels" / "portable.yaml")
    assert roots.find_manifest("kernels", "optimized") == os.path.join(package, "kernels",
                                                                       "optimized.yaml")
    assert roots.find_manifest("models", "tiny") == str(project / "manifests" / "models" / "tiny.yaml")
    assert roots.find_manifest("models", "mlp") == os.path.join(package, "models", "mlp.yaml")
    assert roots.find_manifest("models", "nothing") is None
    assert {"mine", "portable", "optimized"} <= set(roots.manifest_names("kernels"))
    assert roots.overrides() == ["the project's manifests/kernels/portable.yaml overrides "
                                 "the package's"]


def test_tailor_build_runs_the_packaged_sconstruct_for_the_project(project):
    args, rest = build_parser().parse_known_args(
        ["--model", "tiny", "--target", "mine", "--run", "--lib", "static", "-j", "2",
         "generate=hi", "-n"])
    command = scons_command(args, rest, str(project))
    assert command[:7] == [sys.executable, "-m", "SCons", "-C", roots.PACKAGE, "-f",
                           "SConstruct"]
    assert command[7:] == ["-j2", "model=tiny", "project=%s" % project, "target=mine",
                           "run=1", "lib=static", "generate=hi", "-n"]


def test_the_build_takes_the_projects_manifests_and_sources(project):
    """Up to the kernel plan (no compile): the project's model (its factory imported from
    the project), its target, its own library with its kernel source from the project,
    its portable overriding the package's (said in the log), the package's prim, and the
    build under the project's build/."""
    env = {k: v for k, v in os.environ.items() if k != "TAILOR_PROJECT"}
    plan = build_layout.kernel_plan(os.path.join(project, build_layout.output_dir(["tiny"],
                                                                                  target="mine")))
    proc = subprocess.run([sys.executable, "-m", "SCons", "-C", REPO, "-f", "SConstruct",
                           "project=%s" % project, "model=tiny", "target=mine", plan],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("tailor: the project's manifests/kernels/portable.yaml overrides the package's"
            in proc.stdout)
    with open(plan) as f:
        text = f.read()
    assert "libraries: [mine, portable, prim]" in text, text
    assert "source: kernels/mine/op_relu.cpp" in text and "library: mine" in text, text
    assert not os.path.exists(os.path.join(REPO, build_layout.BUILD_DIR, "mine"))
