"""Shared pytest helpers: where the repo and its tools are."""

import collections
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


# The files whose first test builds for minutes (their fixtures), longest first: the two
# workers of the README's command (pytest-xdist, --dist loadfile) start them before the
# rest, so the run does not end with one worker building while the other idles.
LONG_FILES_FIRST = (
    "tests/ops/test_ops.py", "tests/fuzz/test_fuzz.py", "tests/e2e/test_model_families.py",
    "tests/runtime/test_malformed.py", "tests/llm/test_llm_build.py",
    "tests/ops/test_dtype_selection.py", "tests/e2e/test_build_faults.py",
)


def pytest_configure(config):
    os.environ.setdefault("TAILOR_CACHE", TEST_CACHE)
    # pytest-xdist would order the files by their number of tests; the order the hook below
    # gives is better (a file of 6 tests can take 6 minutes).
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    config.addinivalue_line("markers", "slow: more of what a default-run test already covers "
                                       "(more models, longer runs); runs with --slow")


def pytest_collection_modifyitems(config, items):
    """LONG_FILES_FIRST, then the other files by their number of tests (most first); the
    slow tier runs with --slow only."""
    files = [item.nodeid.split("::", 1)[0] for item in items]
    tests = collections.Counter(files)
    rank = {f: LONG_FILES_FIRST.index(f) if f in LONG_FILES_FIRST else len(LONG_FILES_FIRST)
            for f in tests}
    order = sorted(range(len(items)), key=lambda i: (rank[files[i]], -tests[files[i]], files[i]))
    items[:] = [items[i] for i in order]
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


def passed_check(out: str, model: str) -> str:
    """The run=1 self-check report of `model` in the build at `out`, which must say it passed
    (an up-to-date build does not print it again)."""
    with open(build_layout.check_report(out, model)) as f:
        report = f.read()
    assert report.rstrip().endswith("check passed"), report
    return report
