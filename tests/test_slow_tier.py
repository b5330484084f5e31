"""The collection hook (tests/conftest.py): a test marked slow skips in the README's test
command, saying how to run it, and runs with --slow; the files with long fixtures come
first."""

import os
import subprocess
import sys

from tests.conftest import LONG_FILES_FIRST, REPO

# One test of the tier: the family tests' programs= neighbours (tests/e2e).
SLOW = "tests/e2e/test_model_families.py::test_family_from_programs_matches_eager"


def _pytest(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           *args], cwd=REPO, capture_output=True, text=True)
    return proc.stdout + proc.stderr


def test_slow_tests_skip_without_the_option():
    out = _pytest(SLOW + "[gru-host]")
    assert "1 skipped" in out and "slow tier: run with --slow (.ci/run does)" in out, out


def test_the_option_selects_only_the_tier_with_the_marker():
    # -m slow --slow: the tier's tests and nothing else (collected only, not run): the
    # programs= neighbours on both targets, and host-xnnpack's runtime of the manifests.
    out = _pytest("--slow", "-m", "slow", "--collect-only", "tests/e2e/test_model_families.py")
    collected = [line for line in out.splitlines() if "::" in line]
    assert any("test_family_from_programs_matches_eager" in c and "-host]" in c
               for c in collected), out
    assert collected and all("test_family_from_programs_matches_eager" in c
                             or c.endswith("-host-xnnpack]") for c in collected), out


def test_the_files_with_long_fixtures_are_collected_first():
    for path in LONG_FILES_FIRST:  # a renamed file would silently lose its place
        assert os.path.isfile(os.path.join(REPO, path)), path
    out = _pytest("--collect-only", "tests/test_slow_tier.py", "tests/runtime/test_malformed.py")
    files = [line.split("::")[0] for line in out.splitlines() if "::" in line]
    assert files and files[0] == "tests/runtime/test_malformed.py", out
    assert files[-1] == "tests/test_slow_tier.py", out
