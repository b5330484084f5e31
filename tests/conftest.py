"""Shared pytest helpers: where the repo and its tools are."""

import os
import subprocess
import sys

import pytest

from codegen import build_layout

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCONS = os.path.join(os.path.dirname(sys.executable), "scons")


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite tests/codegen/golden/ from the current templates")
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the slow tier (tests marked slow; .ci/run runs it)")


# Every build the tests start shares one output cache (cache=, README: Builds beyond one
# machine): a runtime, kernel or export another test already made is copied, not made
# again. Tests of what a build itself makes take it out (no_build_cache).
TEST_CACHE = os.path.join(REPO, build_layout.tree("test-cache"))


@pytest.fixture
def no_build_cache(monkeypatch):
    """The builds a test starts make everything themselves (what the build makes, or how
    it goes, is under test): `pytestmark = pytest.mark.usefixtures("no_build_cache")`."""
    monkeypatch.delenv("TAILOR_CACHE", raising=False)


def pytest_configure(config):
    os.environ.setdefault("TAILOR_CACHE", TEST_CACHE)
    config.addinivalue_line("markers", "slow: more of what a default-run test already covers "
                                       "(more models, longer runs); runs with --slow")


def pytest_collection_modifyitems(config, items):
    """The README's test command stays well under 20 minutes on 2 cores: the slow tier
    runs with --slow only."""
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow tier: run with --slow (.ci/run does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def run_scons(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs scons in the repo; on an unexpected exit code the failure shows its output."""
    proc = subprocess.run([SCONS, "-j2", *args], cwd=REPO, capture_output=True, text=True)
    if check and proc.returncode != 0:
        pytest.fail("scons %s failed (exit %d):\n%s%s" % (" ".join(args), proc.returncode,
                                                         proc.stdout[-6000:], proc.stderr[-6000:]))
    return proc
