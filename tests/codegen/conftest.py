"""Fixtures for the codegen tests: ATen schemas, inline manifests, small programs."""

import textwrap

import pytest

from codegen.kernel_manifest import parse_library
from codegen.schema import load_aten_schemas

@pytest.fixture(scope="session")
def aten():
    return load_aten_schemas()


@pytest.fixture
def library(aten):
    """library(yaml_text, name="portable") -> KernelLibrary parsed from inline YAML."""
    def make(text: str, name: str = "portable"):
        return parse_library(textwrap.dedent(text), f"manifests/kernels/{name}.yaml", aten)
    return make


@pytest.fixture
def update_goldens(request) -> bool:
    return request.config.getoption("--update-goldens")
