"""exporter/passes/common_subexpressions.py: repeated calls become one, and calls that
are not safe to share (random, in-place, out=, returned) stay."""

import types

import pytest
import torch
from torch import nn

from exporter.export import export
from exporter.passes.common_subexpressions import merge_common_subexpressions
from program_checks import assert_plan_is_safe
from pte_interpreter import run_program

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
aten = torch.ops.aten
# tril stays one op (exporter/decompositions.py keeps it whole).
_MASK_OPS = (aten.full.out, aten.tril.out, aten.bitwise_not.out)


class MaskedLayers(nn.Module):
    """Three layers that each build the same causal mask from the dynamic length, as
    the demo GPT's attention does."""

    def forward(self, x):                                   # x: [T, T]
        for _ in range(3):
            t = x.shape[0]
            causal = torch.ones(t, t, dtype=torch.bool).tril()
            x = x.masked_fill(~causal, float("-inf")).softmax(-1) * 2.0
        return x


def _op_counts(program) -> dict:
    names = program.operators
    counts = {}
    for _, call in program.method.kernel_calls():
        counts[names[call.op_index]] = counts.get(names[call.op_index], 0) + 1
    return counts


def _exported(module, example, dims=None):
    with torch.no_grad():
        return export(module.eval(), (example,), dynamic_shapes=dims)


def test_a_mask_built_in_every_layer_is_computed_once():
    t = torch.export.Dim("T", min=2, max=16)
    program = _exported(MaskedLayers(), torch.randn(8, 8), ({0: t, 1: t},))
    counts = _op_counts(program)
    assert program.simplified.merged > 0
    for op in _MASK_OPS:
        name = f"aten::{op._schema.name.split('::')[1]}.{op._overloadname}"
        assert counts.get(name) == 1, (name, counts.get(name))
    # Each layer still masks and normalizes its own scores.
    assert counts["aten::masked_fill.Scalar_out"] == 3
    assert counts["aten::_softmax.out"] == 3
    assert_plan_is_safe(program.method)
    for length in (3, 8, 16):                                # other lengths than traced
        x = torch.randn(length, length)
        got = run_program(program.data, program.segment, [x])
        torch.testing.assert_close(got[0], MaskedLayers()(x))


def test_random_calls_are_not_merged():
    class TwoNoises(nn.Module):
        def forward(self, x):
            return x + torch.rand_like(x) - torch.rand_like(x)

    ep = torch.export.export(TwoNoises(), (torch.randn(4),)).run_decompositions()
    assert merge_common_subexpressions(ep) == 0
    targets = [n.target for n in ep.graph.nodes if n.op == "call_function"]
    assert targets.count(aten.rand_like.default) == 2


def _graph_with_two(op, *args) -> torch.fx.Graph:
    """x -> op(x, *args) twice, their product returned: a graph torch.export does not
    produce for mutating ops (it functionalizes them), so it is built by hand."""
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    first = graph.call_function(op, (x, *args))
    second = graph.call_function(op, (x, *args))
    graph.output(graph.call_function(aten.mul.Tensor, (first, second)))
    return graph


def _merged_in(graph: torch.fx.Graph) -> int:
    return merge_common_subexpressions(types.SimpleNamespace(graph=graph))


def test_in_place_and_out_calls_are_not_merged_and_their_functional_form_is():
    assert _merged_in(_graph_with_two(aten.add_.Tensor, 1.0)) == 0
    out_graph = torch.fx.Graph()
    x = out_graph.placeholder("x")
    buffer = out_graph.placeholder("buffer")
    calls = [out_graph.call_function(aten.add.out, (x, 1.0), {"out": buffer})
             for _ in range(2)]
    out_graph.output(out_graph.call_function(aten.mul.Tensor, tuple(calls)))
    assert _merged_in(out_graph) == 0
    # The same call without mutation is merged, so the two above stay for their
    # schema, not because this graph shape defeats the pass.
    functional = _graph_with_two(aten.add.Tensor, 1.0)
    assert _merged_in(functional) == 1
    fn = torch.fx.GraphModule(nn.Module(), functional)
    x = torch.randn(5)
    torch.testing.assert_close(fn(x), (x + 1.0) * (x + 1.0))


@pytest.mark.parametrize("a,b", [(1, 1.0), (1, True), (0.0, -0.0), (2.0, 3.0)])
def test_literals_must_be_equal_and_of_the_same_type(a, b):
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    calls = [graph.call_function(aten.add.Scalar, (x, v)) for v in (a, b)]
    graph.output(graph.call_function(aten.mul.Tensor, tuple(calls)))
    assert _merged_in(graph) == 0


def test_calls_the_output_returns_stay_separate():
    class TwoEqual(nn.Module):
        def forward(self, x):
            return x * 3.0, x * 3.0

    module, x = TwoEqual(), torch.randn(4)
    program = _exported(module, x)
    assert program.simplified.merged == 0
    first, second = program.method.outputs
    assert first != second
    got = run_program(program.data, program.segment, [x])
    torch.testing.assert_close(got[0], x * 3.0)
    torch.testing.assert_close(got[1], x * 3.0)
