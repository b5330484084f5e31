"""Fixtures for the backend tests: the sanitized portable-only runner of tests/runtime
(a runtime built without backends) and toolchain skips that say how to install."""

import shutil

import pytest

from tests.runtime.conftest import runner_bin, sanitized_bins  # noqa: F401 (fixtures)


def require(tool: str, install: str) -> None:
    """Skips the test when `tool` is not on PATH, naming the command that installs it."""
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not found; install it: {install}")
