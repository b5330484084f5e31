"""Constant folding at export (exporter/passes/constant_folding.py): what folds, what it stores,
what it leaves alone, and that the folded programs still compute what torch computes."""

import pytest
import torch
from torch import nn

from exporter.passes.constant_folding import MAX_GROWTH_BYTES, fold_constants
from exporter.export import export
from program import model
from program_checks import assert_plan_is_safe
from pte_interpreter import run_program

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def _constants(program) -> list[bytes]:
    """The bytes of each constant tensor value, in value order."""
    found = []
    for v in program.method.values:
        if isinstance(v, model.Tensor) and v.constant is not None:
            off = v.constant.offset
            found.append(program.segment[off:off + v.nbytes])
    return found


def _bytes(t: torch.Tensor) -> bytes:
    return t.detach().contiguous().numpy().tobytes()


def _check_runs(program, module, *inputs):
    assert_plan_is_safe(program.method)
    got = run_program(program.data, program.segment, list(inputs))
    with torch.no_grad():
        want = module(*inputs)
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)


class Linear(nn.Module):
    def __init__(self, bias: bool = True):
        super().__init__()
        self.fc = nn.Linear(8, 5, bias=bias)

    def forward(self, x):
        return self.fc(x)


@pytest.mark.parametrize("bias", [True, False])
def test_linear_weight_is_stored_transposed_and_the_original_is_dropped(bias):
    torch.manual_seed(0)
    module, x = Linear(bias).eval(), torch.randn(3, 8)
    program = export(module, (x,))
    assert "aten::permute_copy.out" not in program.operators
    assert program.operators == (["aten::addmm.out"] if bias else ["aten::mm.out"])
    assert program.folded == ("permute",)
    w = module.fc.weight
    want = [_bytes(w.t())] + ([_bytes(module.fc.bias)] if bias else [])
    assert _constants(program) == want
    # The [5, 8] weight itself is read by nothing any more: it is not in the segment.
    assert _bytes(w) not in program.segment
    assert len(program.segment) == (192 + 20 if bias else 160)   # 64-aligned
    _check_runs(program, module, x)


def test_the_folded_weight_is_the_transposed_values():
    torch.manual_seed(1)
    module = Linear().eval()
    ep = torch.export.export(module, (torch.randn(2, 8),)).run_decompositions()
    assert fold_constants(ep) == ("permute",)
    (spec,) = [s for s in ep.graph_signature.input_specs if s.target in ep.constants]
    torch.testing.assert_close(ep.constants[spec.target], module.fc.weight.detach().t(),
                               rtol=0, atol=0)
    assert "fc.weight" not in ep.state_dict and "fc.bias" in ep.state_dict
    # The rewritten ExportedProgram is still a valid one.
    ep.validate()
    x = torch.randn(2, 8)
    with torch.no_grad():
        torch.testing.assert_close(ep.module()(x), module(x))


def test_an_op_reading_a_runtime_value_is_not_folded():
    class TransposesInput(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(4, 4))

        def forward(self, x):                     # x: [4, 3]
            return self.w @ x.t().contiguous().t()

    torch.manual_seed(2)
    module, x = TransposesInput().eval(), torch.randn(4, 3)
    program = export(module, (x,))
    assert program.folded == ()
    assert "aten::permute_copy.out" in program.operators
    # Its dims are an IntList of Int values.
    for args in [c.args for _, c in program.method.kernel_calls()
                 if program.operators[c.op_index] == "aten::permute_copy.out"]:
        src, dims, _ = (program.method.values[a] for a in args)
        assert src.allocation is not None and isinstance(dims, model.IntList)
        assert [program.method.values[i].value for i in dims.items] == [1, 0]
    assert _constants(program) == [_bytes(module.w)]
    _check_runs(program, module, x)


class TiedEmbedding(nn.Module):
    """The embedding reads the weight as is, the output projection its transpose."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.head = nn.Linear(6, 10, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, idx):
        return self.head(self.emb(idx))


def test_a_weight_still_used_unfolded_is_stored_beside_its_transpose():
    torch.manual_seed(3)
    module, idx = TiedEmbedding().eval(), torch.tensor([[1, 2, 9]])
    program = export(module, (idx,))
    assert program.folded == ("permute",)
    assert "aten::permute_copy.out" not in program.operators
    w = module.emb.weight
    assert sorted(_constants(program)) == sorted([_bytes(w), _bytes(w.t())])
    _check_runs(program, module, idx)


def test_chains_fold_whole_and_equal_results_are_stored_once():
    class Chain(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(4, 6))

        def forward(self, x):                     # x: [2, 24]
            flat = self.w.t().reshape(1, 24)      # permute -> clone -> view: the clone is a
                                                  # no-op (removed), the rest folded
            same = self.w.reshape(2, 12)          # a view of w: the same bytes as w
            return x * flat, self.w * 2.0 + same.reshape(4, 6) * x[:, :6].sum()

    torch.manual_seed(4)
    module, x = Chain().eval(), torch.randn(2, 24)
    program = export(module, (x,))
    assert program.folded == ("permute", "view", "view_1", "mul_1", "view_2")
    assert program.simplified.noops == 1
    assert "aten::permute_copy.out" not in program.operators
    assert "aten::view_copy.out" not in program.operators
    w = module.w.detach()
    stored = set(_constants(program))
    assert _bytes(w.t().reshape(1, 24)) in stored
    # w * 2.0 is folded too. w itself is read by nothing any more, but the folded
    # view of it has its bytes: the segment holds those, w.t() flattened and w * 2.0,
    # 96 bytes each at 64-aligned offsets.
    assert stored == {_bytes(w), _bytes(w.t().reshape(1, 24)), _bytes(w * 2.0)}
    assert len(program.segment) == 128 + 128 + 96
    _check_runs(program, module, x)


def test_a_cast_constant_is_stored_once_in_its_new_dtype():
    class Casts(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("table", torch.arange(6, dtype=torch.float16) / 4)

        def forward(self, x):
            return x + self.table.to(torch.float32)

    module, x = Casts().eval(), torch.randn(6)
    program = export(module, (x,))
    assert program.folded == ("_to_copy",)
    # The Half buffer is read by nothing but a metadata check: it is dropped.
    assert _constants(program) == [_bytes(module.table.float())]
    assert program.operators == ["aten::add.out"]
    _check_runs(program, module, x)


def test_growth_is_capped():
    n_small = MAX_GROWTH_BYTES // 4 // 8          # [n_small, 8] floats fit the cap

    class Expands(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("row", torch.arange(8.0))

        def forward(self, x, y):                  # x: [n_small, 8], y: [n_small + 1, 8]
            return x + self.row.expand(n_small, 8).clone(), \
                y + self.row.expand(n_small + 1, 8).clone()

    module = Expands().eval()
    x, y = torch.randn(n_small, 8), torch.randn(n_small + 1, 8)
    program = export(module, (x, y))
    # The expand that fits is folded; the one past the cap is not. Both clones are
    # no-op copies, removed before folding.
    assert program.folded == ("expand",)
    assert program.simplified.noops == 2
    assert "aten::expand_copy.out" in program.operators
    assert sorted(map(len, _constants(program))) == [32, MAX_GROWTH_BYTES]
    _check_runs(program, module, x, y)


def test_random_and_uninitialized_ops_are_not_folded():
    class Random(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", torch.ones(4))

        def forward(self, x):
            return x + torch.rand_like(self.b) + torch.empty_like(self.b).zero_() \
                + torch.zeros_like(self.b)

    ep = torch.export.export(Random(), (torch.randn(4),)).run_decompositions()
    # rand_like(b) is seeded randomness and empty_permuted (from empty_like) has
    # undefined contents and no tensor input; full_like(b, 0) is deterministic.
    assert fold_constants(ep) == ("full_like_1",)
    ops = {n.target for n in ep.graph.nodes if n.op == "call_function"}
    aten = torch.ops.aten
    assert {aten.rand_like.default, aten.empty_permuted.default} <= ops


def test_a_returned_value_stays_a_call():
    class ReturnsTransposed(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(3, 2))

        def forward(self, x):
            return x + 1, self.w.t()

    module, x = ReturnsTransposed().eval(), torch.randn(2)
    program = export(module, (x,))
    assert program.folded == ()
    out = program.method.values[program.method.outputs[1]]
    assert out.allocation is not None
    _check_runs(program, module, x)


def test_delegation_sees_the_folded_weight_as_a_constant():
    from backends.xnnpack import XnnpackPartitioner
    from backends.xnnpack.payload import decode

    torch.manual_seed(5)
    module, x = Linear().eval(), torch.randn(3, 8)
    plain = export(module, (x,))
    program = export(module, (x,), partitioner=XnnpackPartitioner())
    assert [type(i) for i in program.method.instructions] == [model.DelegateCall]
    report = program.delegation
    assert report.groups == ((("addmm", "aten::addmm.out"),),)
    assert report.folded == () and report.outside == ()
    # The filter is the stored [8, 5] constant, passed with transpose_weights.
    assert len(program.segment) == len(plain.segment) + 16
    graph = decode(program.method.delegates[0].data)
    (node,) = graph["nodes"]
    assert node["kind"] == "FullyConnected"
    assert sum(v["constant"] for v in graph["values"]) == 2
