"""launcher=ccache (distcc, sccache alike): every compile goes through the launcher, so a
clean build of another checkout compiles nothing itself; a launcher that is not
installed stops the build before anything compiles."""

import os
import shutil
import subprocess

import pytest

from codegen import build_layout
from tests.conftest import REPO, SCONS, run_scons

# These builds must compile and export themselves (the tests' shared cache would hand
# their outputs back instead).
pytestmark = pytest.mark.usefixtures("no_build_cache")

BUILD = build_layout.tree("test-launcher")  # relative, so both checkouts compile alike
# kept: later runs start warm
CCACHE_DIR = os.path.join(REPO, build_layout.tree("test-launcher-ccache"))
VENV = os.path.relpath(os.path.dirname(os.path.dirname(SCONS)), REPO)  # ".venv" (setup.sh)


def _copy_checkout(dest: str) -> None:
    """The tracked and new files of this checkout (what a second clone would hold), and
    its venv linked in: a clone set up by setup.sh has its own, at the same relative path
    (the flatbuffers headers come from it, and their paths reach the preprocessed text)."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for rel in filter(None, files):
        if os.path.isfile(os.path.join(REPO, rel)):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(os.path.join(REPO, rel), os.path.join(dest, rel))
    os.symlink(os.path.join(REPO, VENV), os.path.join(dest, VENV))


def _build(checkout: str, env: dict) -> str:
    shutil.rmtree(os.path.join(checkout, BUILD), ignore_errors=True)
    # The checkout's own venv's python (scons' shebang names the first checkout's).
    venv_bin = os.path.join(checkout, VENV, "bin")
    proc = subprocess.run([os.path.join(venv_bin, "python"), os.path.join(venv_bin, "scons"),
                           "-j2", "ops=aten::relu.out", "launcher=ccache",
                           "build_dir=" + BUILD], cwd=checkout, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return proc.stdout


def _stats(env: dict) -> dict:
    text = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True,
                          text=True, check=True).stdout
    return {key: int(value) for key, value in (line.split("\t") for line in text.splitlines())
            if value.isdigit()}


def test_a_clean_build_of_another_checkout_hits_the_ccache(tmp_path):
    if shutil.which("ccache") is None:
        pytest.skip("ccache is not installed (apt-get install -y ccache; setup.sh does)")
    env = dict(os.environ, CCACHE_DIR=CCACHE_DIR)
    other = str(tmp_path / "other-checkout")
    _copy_checkout(other)
    first = _build(REPO, env)
    compiles = first.count(" compiling ")
    assert compiles > 10, first
    subprocess.run(["ccache", "--zero-stats"], env=env, check=True, capture_output=True)
    second = _build(other, env)
    assert second.count(" compiling ") == compiles, second
    stats = _stats(env)
    hits = stats.get("direct_cache_hit", 0) + stats.get("preprocessed_cache_hit", 0)
    assert (hits, stats.get("cache_miss", 0)) == (compiles, 0), stats


def test_a_launcher_that_is_not_installed_stops_the_build():
    proc = run_scons("ops=aten::relu.out", "launcher=no-such-launcher",
                     "build_dir=" + build_layout.tree("test-errors"), check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in text, text
    assert "launcher=no-such-launcher: no-such-launcher is not found on PATH" in text, text
    assert "launcher=none" in text and "compiling" not in text, text
