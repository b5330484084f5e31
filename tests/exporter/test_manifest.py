"""Model manifests: the valid one loads; every mistake is a ManifestError naming the file
(an ExportError when the factory is at fault)."""

import os
import textwrap

import pytest
import torch

from tests.exporter.conftest import REPO
from codegen.errors import ManifestError
from exporter.errors import ExportError
from exporter.manifest import dynamic_shapes, load_manifest, load_model

MLP_YAML = os.path.join(REPO, "manifests", "models", "mlp.yaml")

FACTORIES = '''
import torch
from torch import nn

def good():
    return nn.Linear(3, 2), (torch.randn(4, 3),)

def returns_module_only():
    return nn.Linear(3, 2)

def returns_list_inputs():
    return nn.Linear(3, 2), [torch.randn(4, 3)]
'''


@pytest.fixture
def write(tmp_path, monkeypatch):
    (tmp_path / "tl_test_factories.py").write_text(FACTORIES)
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(text: str, name: str = "model.yaml") -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return str(path)
    return write


def test_the_mlp_manifest():
    m = load_manifest(MLP_YAML)
    assert m.name == "mlp" and m.factory == "examples.mlp.model:make_mlp"
    assert [(d.input, d.dim, d.name, d.min, d.max) for d in m.dynamic_dims] == [
        (0, 0, "batch", 1, 8)]
    assert (m.tolerance.atol, m.tolerance.rtol) == (1e-5, 1e-5)
    module, inputs = load_model(m)
    assert isinstance(module, torch.nn.Module) and inputs[0].shape == (4, 16)
    (shape,) = dynamic_shapes(m, inputs)
    assert shape[0].min == 1 and shape[0].max == 8


def test_optional_keys_default(write):
    m = load_manifest(write("""\
        description: tiny
        factory: tl_test_factories:good
    """))
    assert m.dynamic_dims == () and m.tolerance.atol == 1e-5
    module, inputs = load_model(m)
    assert dynamic_shapes(m, inputs) is None
    _, inputs = load_model(load_manifest(write("""\
        description: tiny
        factory: tl_test_factories:returns_list_inputs
    """)))
    assert isinstance(inputs, tuple)


@pytest.mark.parametrize("text, message", [
    ("description: x\nfactory: tl_test_factories:good\nbackends: xnnpack\n",
     "unknown key 'backends'"),
    ("description: x\nfactory: tl_test_factories:good\nbackend: xnnpak\n",
     "backend 'xnnpak' is not one of"),
    ("description: x\nfactory: tl_test_factories:good\napp: {name: a, sources: x.cpp}\n",
     "app: sources must be a list of strings"),
    ("description: x\nfactory: tl_test_factories:good\ndata: [1]\n",
     "data must be a list of paths"),
    ("description: x\n", "missing key 'factory'"),
    ("description: x\nfactory: tl_test_factories.good\n", "is not 'module:function'"),
    ("description: x\nfactory: a b:c\n", "is not 'module:function'"),
    ("description: x\nfactory: [a]\n", "factory must be a string"),
    ("- description\n", "must be a mapping"),
    ("description: x\nfactory: m:f\ndynamic_dims: {input: 0}\n", "dynamic_dims must be a list"),
    ("description: x\nfactory: m:f\ndynamic_dims:\n  - {input: 0, dim: 0, name: b, mx: 8}\n",
     r"dynamic_dims\[0\]: unknown key 'mx'"),
    ("description: x\nfactory: m:f\ndynamic_dims:\n  - {input: 0, dim: 0, name: b}\n",
     r"dynamic_dims\[0\]: missing key 'max'"),
    ("description: x\nfactory: m:f\ndynamic_dims:\n  - {input: 0, dim: 0, name: b, max: x}\n",
     r"dynamic_dims\[0\].max must be an integer"),
    ("description: x\nfactory: m:f\ndynamic_dims:\n  - {input: 0, dim: 0, name: b, min: 4, max: 2}\n",
     "min 4 is greater than max 2"),
    ("description: x\nfactory: m:f\ndynamic_dims:\n  - {input: 0, dim: 0, name: 1b, max: 2}\n",
     "must be an identifier"),
    ("description: x\nfactory: m:f\ntolerance: {atol: 1e-5, rtol: 1.0e-5}\n",
     "tolerance.atol must be a number"),
    ("description: x\nfactory: m:f\ntolerance: {atol: 1.0e-5}\n", "missing key 'rtol'"),
    ("description: x\nfactory: m:f\n  bad: [\n", "not valid YAML"),
    ("description: x\nfactory: m:f\nconstant_methods: {get_eos_ids: [a]}\n",
     r"constant_methods: get_eos_ids: \['a'\]; write `name: number` or `name: \[ints\]`"),
    ("description: x\nfactory: m:f\nconstant_methods: {forward: 1}\n",
     "with a name other than forward"),
])
def test_bad_manifests_name_the_file_and_the_entry(write, text, message):
    path = write(text, "broken.yaml")
    with pytest.raises(ManifestError, match=message) as e:
        load_manifest(path)
    assert str(e.value).startswith(path + ":")


@pytest.mark.parametrize("factory, message", [
    ("tl_test_factories_missing:good", "cannot import tl_test_factories_missing"),
    ("tl_test_factories:absent", "has no function absent"),
    ("tl_test_factories:returns_module_only", r"must return \(nn.Module, tuple"),
])
def test_factories_that_do_not_work(write, factory, message):
    path = write(f"description: x\nfactory: {factory}\n", "factory.yaml")
    with pytest.raises(ExportError, match=message) as e:
        load_model(load_manifest(path))
    assert str(e.value).startswith(path + ":")


@pytest.mark.parametrize("dim, message", [
    ("{input: 1, dim: 0, name: b, max: 8}", "input 1 is not a tensor input"),
    ("{input: 0, dim: 2, name: b, max: 8}", "has 2 dims, so it has no dim 2"),
    ("{input: 0, dim: 0, name: b, min: 5, max: 8}", r"size 4 in dim 0, outside \[5, 8\]"),
])
def test_dynamic_dims_are_checked_against_the_inputs(write, dim, message):
    path = write(f"description: x\nfactory: tl_test_factories:good\ndynamic_dims: [{dim}]\n")
    with pytest.raises(ExportError, match=message):
        load_model(load_manifest(path))


def test_a_missing_manifest(tmp_path):
    with pytest.raises(ManifestError, match="cannot read the manifest"):
        load_manifest(str(tmp_path / "nope.yaml"))
