"""The example MLP exported: operators, arguments, constants (the weights folded to
their transposes), dynamic dims, memory plan, serialization, and the program's numbers
against torch eager."""

import os
import struct

import pytest
import torch

from tests.exporter.conftest import MLP_MAX_BATCH, REPO
from program.pte import HEADER_SIZE, deserialize_json, read_header
from program_checks import assert_plan_is_safe, tensor_nbytes
from pte_interpreter import run_program


def _calls(program, op):
    m = program.to_dict()["methods"][0]
    index = program.operators.index(op)
    return [i["instr"]["args"] for i in m["instructions"] if i["instr"]["op_index"] == index]


def _value(program, vid):
    return program.to_dict()["methods"][0]["values"][vid]


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_operators_are_the_out_variants_of_the_graph_ops(mlp):
    module, inputs = mlp
    from exporter.export import export
    from exporter.out_variants import program_op

    ep = torch.export.export(module, inputs).run_decompositions()
    graph_ops = {n.target for n in ep.graph.nodes if n.op == "call_function"}
    program = export(module, inputs)
    # The weight transposes (permute of a parameter) are folded into constants.
    assert program.folded == ("permute", "permute_1")
    assert sorted(program.operators) == sorted({program_op(t).qualified_name
                                                for t in graph_ops
                                                if t is not torch.ops.aten.permute.default})
    assert set(program.operators) == {"aten::addmm.out", "aten::relu.out"}
    # No functional op is left: every operator's torch schema writes to out arguments.
    for name in program.operators:
        base, overload = name.removeprefix("aten::").split(".")
        schema = getattr(getattr(torch.ops.aten, base), overload)._schema
        assert any(a.is_out for a in schema.arguments), name


def test_every_aten_operator_has_a_schema_for_codegen(mlp_program):
    with open(os.path.join(REPO, "schema", "aten_ops.yaml")) as f:
        text = f.read()
    for name in mlp_program.operators:
        assert f"\n{name.removeprefix('aten::')}: " in text, name


def test_addmm_args_follow_the_schema(mlp, mlp_program):
    # addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
    #           Tensor(a!) out)
    module, _ = mlp
    first, second = _calls(mlp_program, "aten::addmm.out")
    bias, x, weight_t, beta, alpha, out = (_value(mlp_program, a) for a in first)
    assert bias["val"]["sizes"] == [32] and "constant" in bias["val"]
    assert first[1] == mlp_program.to_dict()["methods"][0]["inputs"][0]
    # mat2 is the transposed weight, folded at export into a constant.
    assert weight_t["val"]["sizes"] == [16, 32] and "constant" in weight_t["val"]
    off = weight_t["val"]["constant"]["offset"]
    got = mlp_program.segment[off:off + tensor_nbytes(weight_t["val"])]
    assert got == module.fc1.weight.detach().t().contiguous().numpy().tobytes()
    assert beta == {"val_type": "Int", "val": {"value": 1}}
    assert alpha == {"val_type": "Int", "val": {"value": 1}}
    assert out["val"]["sizes"] == [MLP_MAX_BATCH, 32]
    assert second[-1] == mlp_program.to_dict()["methods"][0]["outputs"][0]
    # Each scalar argument is a value of its own.
    assert first[3] != first[4]


def test_kernel_keys(mlp_program):
    keys = {(c.op, c.key) for c in mlp_program.kernel_calls()}
    assert keys == {("aten::addmm.out", "Float;0|Float;0,1|Float;0,1|Float;0,1"),
                    ("aten::relu.out", "Float;0,1|Float;0,1")}


def test_constants_are_aligned_inside_the_segment_and_equal_the_parameters(mlp, mlp_program):
    module, _ = mlp
    # In program order; the weights are stored transposed, as addmm reads them.
    params = [p.detach() for p in (module.fc1.weight.t().contiguous(), module.fc1.bias,
                                   module.fc2.weight.t().contiguous(), module.fc2.bias)]
    constants = [v["val"] for v in mlp_program.to_dict()["methods"][0]["values"]
                 if v.get("val_type") == "Tensor" and "constant" in v["val"]]
    assert len(constants) == len(params)
    segment = mlp_program.segment
    assert mlp_program.to_dict()["segments"] == [{"offset": 0, "size": len(segment)}]
    for t, p in zip(constants, params):
        off = t["constant"]["offset"]
        assert t["constant"]["segment"] == 0 and off % 64 == 0
        assert off + tensor_nbytes(t) <= len(segment)
        assert t["sizes"] == list(p.shape) and t["dim_order"] == list(range(p.dim()))
        assert segment[off:off + tensor_nbytes(t)] == p.numpy().tobytes()
    # The untransposed weights are used by nothing, so they are not stored: the
    # segment is exactly the four tensors above, in the layout of the unfolded program.
    assert len(segment) == 2048 + 128 + 512 + 16


def test_dynamic_batch_is_planned_at_its_upper_bound(mlp_program):
    m = mlp_program.to_dict()["methods"][0]
    x = m["values"][m["inputs"][0]]["val"]
    y = m["values"][m["outputs"][0]]["val"]
    assert x["sizes"] == [MLP_MAX_BATCH, 16] and x["dynamic"] is True
    assert y["sizes"] == [MLP_MAX_BATCH, 4] and y["dynamic"] is True
    assert "allocation" in x and "allocation" in y
    # The lower bounds too: the runtime refuses a batch below the export's min (1).
    assert x["min_sizes"] == [1, 16] and y["min_sizes"] == [1, 4]


def test_memory_plan_is_safe_and_reuses_memory(mlp_program):
    m = mlp_program.to_dict()["methods"][0]
    assert_plan_is_safe(m)
    planned = [v["val"] for v in m["values"]
               if v.get("val_type") == "Tensor" and "allocation" in v["val"]]
    assert len(planned) == 4       # input, 2 addmm outs, relu out (no permuted weights)
    total = sum(tensor_nbytes(t) for t in planned)
    assert m["arena_sizes"] == [mlp_program.plan.arena_size]
    assert mlp_program.plan.arena_size < total <= mlp_program.plan.unshared_size


def test_round_trip_through_the_pte_format(mlp_program):
    data = mlp_program.to_bytes()
    assert data[4:8] == b"TL01" and data[8:12] == b"TLH1"
    program_size, segment_base, segment_size = read_header(data)
    assert segment_base % 4096 == 0 and segment_size == len(mlp_program.segment)
    assert struct.unpack_from("<I", data, 12)[0] == HEADER_SIZE
    back, segment = deserialize_json(data)
    assert segment == mlp_program.segment
    mine = mlp_program.to_dict()
    assert back["version"] == mine["version"]
    assert back["segments"] == mine["segments"]
    (bm,), (mm,) = back["methods"], mine["methods"]
    for key in ("name", "inputs", "outputs", "operators", "instructions", "arena_sizes"):
        assert bm[key] == mm[key], key
    assert len(bm["values"]) == len(mm["values"])
    for got, want in zip(bm["values"], mm["values"]):
        if not want:
            assert got.get("val_type", "NONE") == "NONE"
            continue
        assert got["val_type"] == want["val_type"]
        for field, v in want["val"].items():
            assert got["val"][field] == v, (want, got)


@pytest.mark.parametrize("batch", [1, 4, MLP_MAX_BATCH])
def test_program_computes_what_torch_computes(mlp, mlp_program, batch):
    module, _ = mlp
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(batch))
    (got,) = run_program(mlp_program.to_dict(), mlp_program.segment, [x])
    with torch.no_grad():
        torch.testing.assert_close(got, module(x), atol=1e-6, rtol=1e-6)


def test_deserialized_program_computes_the_same(mlp, mlp_program):
    module, (x,) = mlp
    program, segment = deserialize_json(mlp_program.to_bytes())
    (got,) = run_program(program, segment, [x])
    with torch.no_grad():
        torch.testing.assert_close(got, module(x), atol=1e-6, rtol=1e-6)


class _Residual(torch.nn.Module):
    """x + relu(fc(x)): x stays live across two calls."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        return x + torch.relu(self.fc(x))


def test_a_clobbering_plan_gives_wrong_numbers():
    """The executor above really reads the plan: put every tensor at offset 0 and the
    result changes (so the two tests above can fail). The MLP is a pure chain (each
    tensor is read only by the next call), where that plan would be valid, so this
    uses a residual block."""
    from exporter.export import export
    torch.manual_seed(0)
    module, x = _Residual().eval(), torch.randn(4, 16)
    exported = export(module, (x,))
    (good,) = run_program(exported.to_dict(), exported.segment, [x])
    program = exported.to_dict()
    for v in program["methods"][0]["values"]:
        if v.get("val_type") == "Tensor" and "allocation" in v["val"]:
            v["val"]["allocation"]["offset"] = 0
    (got,) = run_program(program, exported.segment, [x])
    with torch.no_grad():
        want = module(x)
    torch.testing.assert_close(good, want)
    assert not torch.allclose(got, want)


def test_save_is_atomic_and_deterministic(mlp, mlp_program, tmp_path):
    from exporter.export import export
    module, inputs = mlp
    path = tmp_path / "out" / "mlp.pte"
    size = mlp_program.save(str(path))
    assert path.read_bytes() == mlp_program.to_bytes() and size == path.stat().st_size
    # No temporary file is left beside the program and its debug record.
    assert sorted(p.name for p in path.parent.iterdir()) == ["mlp.debug.json", "mlp.pte"]
    batch = torch.export.Dim("batch", min=1, max=MLP_MAX_BATCH)
    assert export(module, inputs, ({0: batch},)).to_bytes() == mlp_program.to_bytes()
