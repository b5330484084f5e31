"""The XNNPACK partitioner and exporter/delegation.py, at export (no build): what is
claimed and what is not, grouping, weights stored once, op info, the report and CLI."""

import subprocess
import sys

import pytest
import torch

from backends.xnnpack import XnnpackPartitioner
from backends.xnnpack.payload import decode
from codegen.oplist import ops_from_program
from codegen.schema import load_aten_schemas
from exporter.export import export
from tests.conftest import REPO


def _export(module, *inputs, dynamic_shapes=None):
    return export(module, inputs, dynamic_shapes, partitioner=XnnpackPartitioner())


def _kinds(program) -> list:
    return [i["instr_type"] for i in program.method["instructions"]]


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def test_mlp_is_one_delegate_with_weights_stored_once():
    torch.manual_seed(0)
    model, x = Mlp(), torch.randn(4, 16)
    plain = export(model, (x,))
    program = _export(model, x)
    assert _kinds(program) == ["DelegateCall"]
    assert program.operators == []
    # Weights and biases are in the constant segment once (plus the backend's slack),
    # and the payload holds no tensor data.
    assert len(program.segment) == len(plain.segment) + 16
    payload = bytes(program.method["delegates"][0]["data"])
    assert len(payload) < 1024
    graph = decode(payload)
    assert [n["kind"] for n in graph["nodes"]] == ["FullyConnected", "Clamp", "FullyConnected"]
    assert sum(v["constant"] for v in graph["values"]) == 4
    # Values internal to the delegate are gone from the program and its arena.
    assert len(program.method["values"]) < len(plain.method["values"])
    assert program.plan.arena_size < plain.plan.arena_size


def test_report_counts_and_marks_the_graph():
    report = _export(Mlp(), torch.randn(2, 16)).delegation
    assert len(report.groups) == 1
    # The exporter already folded the weight transposes into constants.
    assert report.delegated_nodes == 3 and report.folded == () and report.outside == ()
    assert ("aten::addmm.out", 2, 0) in report.op_table()
    text = report.format()
    assert "delegated subgraphs: 1" in text and "non-delegated nodes: 0" in text
    assert "[0] relu" in text and "[f]" not in text


class Mixed(torch.nn.Module):
    """Claimed (linear, softmax) around what XNNPACK 2022 lacks (bmm, gelu, transpose)."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):                    # x: [2, 3, 8]
        y = self.proj(x)
        att = torch.softmax(y @ y.transpose(1, 2), dim=-1)
        return torch.nn.functional.gelu(att @ y)


def test_unsupported_ops_stay_with_the_kernels():
    program = _export(Mixed(), torch.randn(2, 3, 8))
    report = program.delegation
    outside = {op: why for _, op, why in report.outside}
    assert "aten::bmm.out" in outside and "aten::gelu.out" in outside
    assert "transpose" in outside["aten::permute_copy.out"]
    # The op info (what the runtime must carry kernels for) lists only what stayed out.
    ops = {use.op for use in ops_from_program(program.to_dict(), "m", load_aten_schemas(),
                                              "m.pte").ops}
    assert {"aten::bmm.out", "aten::gelu.out"} <= ops
    assert "aten::addmm.out" not in ops and "aten::_softmax.out" not in ops


@pytest.mark.parametrize("fn,why", [
    (lambda x: torch.softmax(x, dim=0) * 2, "softmax over a dim other than the last"),
    (lambda x: (x.long() + 1).float(), "Long tensor"),
    (lambda x: x.sum(dim=-1, keepdim=True) + 1, "not an XNNPACK node"),
])
def test_checks_dtype_and_attributes(fn, why):
    class M(torch.nn.Module):
        def forward(self, x):
            return fn(x)
    report = _export(M(), torch.randn(3, 4)).delegation
    assert any(why in reason for _, _, reason in report.outside), report.format()


def test_groups_stay_convex():
    """relu -> gelu -> add(relu, gelu): relu and add cannot share one delegate, since
    the gelu between them runs outside it."""
    class M(torch.nn.Module):
        def forward(self, x):
            r = torch.sigmoid(x) * 3.0
            return r + torch.nn.functional.gelu(r)
    program = _export(M(), torch.randn(4, 4))
    assert _kinds(program) == ["DelegateCall", "KernelCall", "DelegateCall"]
    assert len(program.delegation.groups) == 2


def test_lone_reshapes_are_not_delegated():
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.gelu(x.view(2, 6)).view(3, 4)
    program = _export(M(), torch.randn(3, 4))
    assert "DelegateCall" not in _kinds(program)
    assert all("not worth" in why for _, op, why in program.delegation.outside
               if op == "aten::view_copy.out")


def test_dynamic_reshape_reads_its_size_at_run_time():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x):                # x: [B, T, 8], T dynamic
            return torch.relu(self.fc(x))
    t = torch.export.Dim("T", max=16)
    program = _export(M(), torch.randn(1, 5, 8), dynamic_shapes=({1: t},))
    delegate_calls = [i["instr"] for i in program.method["instructions"]
                      if i["instr_type"] == "DelegateCall"]
    assert len(delegate_calls) == 1
    graph = decode(bytes(program.method["delegates"][0]["data"]))
    reshapes = [n for n in graph["nodes"] if n["kind"] == "Reshape"]
    assert reshapes and any(d["arg"] >= 0 for n in reshapes for d in n["shape"])
    values = program.method["values"]
    args = delegate_calls[0]["args"]
    assert any(values[a].get("val_type") == "Int" for a in args)


def test_cli_prints_the_report(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "exporter", "--manifest",
                           "manifests/models/mlp.yaml", "--backend", "xnnpack",
                           "--delegation-report"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "delegated to xnnpack: 1 subgraphs, 3 nodes; 0 nodes left to kernels" in proc.stdout
    assert "aten::addmm.out" in proc.stdout and "[0] addmm" in proc.stdout


def test_manifest_rejects_an_unknown_backend(tmp_path):
    from exporter.errors import ExportError
    from exporter.manifest import parse_manifest
    with pytest.raises(ExportError, match="backend 'xnnpak' is not one of xnnpack, none"):
        parse_manifest("m.yaml", {"description": "d", "factory": "a.b:c", "backend": "xnnpak"})
