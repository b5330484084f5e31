"""The example MLP exported: operators, arguments, constants (the weights folded to
their transposes), dynamic dims, memory plan, serialization, and the program's numbers
against torch eager."""

import dataclasses
import os
import struct

import pytest
import torch

from program import model
from program.pte import HEADER_SIZE, deserialize, deserialize_json, read_header
from program_checks import assert_plan_is_safe
from pte_interpreter import run_program
from tests.exporter.conftest import MLP_MAX_BATCH, REPO


def _calls(program, op):
    index = program.operators.index(op)
    return [c.args for _, c in program.method.kernel_calls() if c.op_index == index]


def _value(program, vid):
    return program.method.values[vid]


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
    assert bias.sizes == [32] and bias.constant is not None
    assert first[1] == mlp_program.method.inputs[0]
    # mat2 is the transposed weight, folded at export into a constant.
    assert weight_t.sizes == [16, 32] and weight_t.constant is not None
    off = weight_t.constant.offset
    got = mlp_program.segment[off:off + weight_t.nbytes]
    assert got == module.fc1.weight.detach().t().contiguous().numpy().tobytes()
    assert beta == model.Int(1)
    assert alpha == model.Int(1)
    assert out.sizes == [MLP_MAX_BATCH, 32]
    assert second[-1] == mlp_program.method.outputs[0]
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
    constants = [v for v in mlp_program.method.values
                 if isinstance(v, model.Tensor) and v.constant is not None]
    assert len(constants) == len(params)
    segment = mlp_program.segment
    assert mlp_program.data.segments == [model.Segment(0, len(segment))]
    for t, p in zip(constants, params):
        off = t.constant.offset
        assert t.constant.segment == 0 and off % 64 == 0
        assert off + t.nbytes <= len(segment)
        assert t.sizes == list(p.shape) and t.dim_order == list(range(p.dim()))
        assert segment[off:off + t.nbytes] == p.numpy().tobytes()
    # The untransposed weights are used by nothing, so they are not stored: the
    # segment is exactly the four tensors above, in the layout of the unfolded program.
    assert len(segment) == 2048 + 128 + 512 + 16


def test_dynamic_batch_is_planned_at_its_upper_bound(mlp_program):
    m = mlp_program.method
    x = m.values[m.inputs[0]]
    y = m.values[m.outputs[0]]
    assert x.sizes == [MLP_MAX_BATCH, 16] and x.dynamic is True
    assert y.sizes == [MLP_MAX_BATCH, 4] and y.dynamic is True
    assert x.allocation is not None and y.allocation is not None
    # The lower bounds too: the runtime refuses a batch below the export's min (1).
    assert x.min_sizes == [1, 16] and y.min_sizes == [1, 4]


def test_memory_plan_is_safe_and_reuses_memory(mlp_program):
    m = mlp_program.method
    assert_plan_is_safe(m)
    planned = [v for v in m.values if isinstance(v, model.Tensor) and v.allocation is not None]
    assert len(planned) == 4       # input, 2 addmm outs, relu out (no permuted weights)
    total = sum(t.nbytes for t in planned)
    assert m.arena_sizes == [mlp_program.plan.arena_size]
    assert mlp_program.plan.arena_size < total <= mlp_program.plan.unshared_size


def test_round_trip_through_the_pte_format(mlp_program):
    data = mlp_program.to_bytes()
    assert data[4:8] == b"TL01" and data[8:12] == b"TLH1"
    program_size, segment_base, segment_size = read_header(data)
    assert segment_base % 4096 == 0 and segment_size == len(mlp_program.segment)
    assert struct.unpack_from("<I", data, 12)[0] == HEADER_SIZE
    back, segment = deserialize(data)
    assert segment == mlp_program.segment
    # The model reads back as it was written (the MLP holds no double a flatc JSON
    # round trip could shorten).
    assert back == mlp_program.data
    # And flatc reads the bytes as the schema says: every method field is there.
    (raw,) = deserialize_json(data)[0]["methods"]
    assert raw["name"] == "forward" and raw["arena_sizes"] == back.methods[0].arena_sizes
    assert [i["instr_type"] for i in raw["instructions"]] == ["KernelCall"] * 3


@pytest.mark.parametrize("batch", [1, 4, MLP_MAX_BATCH])
def test_program_computes_what_torch_computes(mlp, mlp_program, batch):
    module, _ = mlp
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(batch))
    (got,) = run_program(mlp_program.data, mlp_program.segment, [x])
    with torch.no_grad():
        torch.testing.assert_close(got, module(x), atol=1e-6, rtol=1e-6)


def test_deserialized_program_computes_the_same(mlp, mlp_program):
    module, (x,) = mlp
    program, segment = deserialize(mlp_program.to_bytes())
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
    (good,) = run_program(exported.data, exported.segment, [x])
    program, _ = deserialize(exported.to_bytes())
    for v in program.methods[0].values:
        if isinstance(v, model.Tensor) and v.allocation is not None:
            v.allocation = dataclasses.replace(v.allocation, offset=0)
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
