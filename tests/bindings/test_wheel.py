"""The wheel, installed: `pip wheel .`, a fresh venv whose only link to this checkout is
the wheel file (its dependencies come from the project venv's site-packages, as
--system-site-packages would give them), `tailor init` and `tailor build --run` in an
empty directory with a model, a kernel library and a target of its own, then a CMake C
application against the --lib shared and --lib static results.

Slow (three builds from nothing, a few minutes): run with TAILOR_WHEEL_TEST=1 (.ci/run does).
"""

import os
import re
import subprocess
import sys

import pytest

from codegen import build_layout
from tests.bindings.c_check import build_cmake_app, run_check
from tests.bindings.venvs import venv_with_project_packages
from tests.build_system.test_project import make_project
from tests.conftest import REPO

pytestmark = pytest.mark.skipif(os.environ.get("TAILOR_WHEEL_TEST") != "1",
                                reason="slow: set TAILOR_WHEEL_TEST=1 (.ci/run does)")


def _run(command, cwd, env) -> str:
    proc = subprocess.run(command, cwd=str(cwd), env=env, capture_output=True, text=True)
    assert proc.returncode == 0, "%s failed:\n%s%s" % (" ".join(map(str, command)),
                                                      proc.stdout[-6000:], proc.stderr[-6000:])
    return proc.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """The venv's bin/ with the wheel installed (not editable)."""
    wheels = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
          "--disable-pip-version-check", "-w", str(wheels), REPO], REPO, dict(os.environ))
    [wheel] = [wheels / name for name in os.listdir(wheels) if name.endswith(".whl")]
    root = tmp_path_factory.mktemp("venv")
    python = venv_with_project_packages(root)
    # With its dependencies: they must resolve from what is installed, with no index.
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-index",
          "--disable-pip-version-check", str(wheel)], root, dict(os.environ))
    return root / "bin"


@pytest.fixture(scope="module")
def env(venv):
    return {**{k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "TAILOR_PROJECT", "VIRTUAL_ENV")},
            "PATH": str(venv) + os.pathsep + os.environ["PATH"]}


@pytest.fixture(scope="module")
def project(tmp_path_factory, venv, env):
    """An empty directory after `tailor init`, with the files of the project example."""
    directory = tmp_path_factory.mktemp("project")
    out = _run([str(venv / "tailor"), "init"], directory, env)
    assert "wrote manifests/models/README.md" in out
    make_project(directory)  # adds the example's files; the layout is already there
    return directory


def test_the_installed_package_runs_from_the_venv(venv, env, project):
    out = _run([str(venv / "python"), "-c", "import codegen.roots, tailor, exporter; "
                "print(codegen.roots.PACKAGE); print(tailor.__file__); print(exporter.__file__)"],
               project, env)
    for line in out.split():
        assert line.startswith(str(venv.parent)) and not line.startswith(REPO), out
    assert os.path.isfile(os.path.join(out.split()[0], "SConstruct"))


def test_tailor_build_runs_the_model(venv, env, project):
    out = _run([str(venv / "tailor"), "build", "--model", "tiny", "--target", "mine", "--run",
                "-j", "2"], project, env)
    assert "tailor: the project's manifests/kernels/portable.yaml overrides the package's" in out
    assert "aten::relu.out: Float -> mine" in out, out
    assert "check passed" in out, out
    built = os.path.join(project, build_layout.output_dir(["tiny"], target="mine"))
    assert os.path.isfile(build_layout.outputs(built).runner)
    with open(os.path.join(built, "compile_commands.json")) as f:
        commands = f.read()
    # Every source and header from the installed package or the project; the dependencies
    # (flatbuffers' headers) from the venv that provides them.
    assert re.search(re.escape(REPO) + r"/(?!\.venv/)", commands) is None, commands


@pytest.mark.parametrize("lib", ["shared", "static"])
def test_cmake_app_against_the_build(venv, env, project, tmp_path, lib):
    out = _run([str(venv / "tailor"), "build", "--model", "tiny", "--target", "mine",
                "--lib", lib, "-j", "2"], project, env)
    relative = build_layout.output_dir(["tiny"], target="mine", lib=lib)
    assert "%s library: %s" % (lib, build_layout.library(relative, lib)) in out, out
    prefix = os.path.join(project, relative)
    exe = build_cmake_app(prefix, tmp_path)
    proc = run_check(exe, build_layout.program(prefix, "tiny"), tmp_path)
    assert proc.returncode == 0 and "c api check passed" in proc.stdout, proc.stdout + proc.stderr

