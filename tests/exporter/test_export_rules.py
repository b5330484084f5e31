"""Lowering rules on small models: symbolic ints, views, Python numbers, lists,
multi-output ops, constants, and the errors for what a program cannot express."""

import pytest
import torch
from torch import nn

from exporter.errors import ExportError
from exporter.export import export
from program import model
from program_checks import assert_plan_is_safe
from pte_interpreter import run_program

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


class ViewOnDynamicDim(nn.Module):
    def forward(self, x):                         # x: (b, 16)
        return x.view(x.shape[0] * 2, 8) * 0.5


def _value(program, vid):
    return program.method.values[vid]


def _int(program, vid):
    v = _value(program, vid)
    assert isinstance(v, model.Int), v
    return v.value


def _calls(program):
    ops = program.operators
    return [(ops[i.op_index], i.args) for i in program.method.instructions]


@pytest.fixture(scope="module")
def view_program():
    batch = torch.export.Dim("batch", min=1, max=8)
    return export(ViewOnDynamicDim(), (torch.randn(4, 16),), ({0: batch},))


def test_sym_size_and_prim_mul_feed_the_view(view_program):
    calls = _calls(view_program)
    assert [op for op, _ in calls] == ["aten::sym_size.int", "tailor_prim::mul.int",
                                       "aten::view_copy.out", "aten::mul.Scalar_out"]
    x = view_program.method.inputs[0]
    # sym_size.int(Tensor self, int dim) -> SymInt: self, dim, then the return slot.
    (_, (self_id, dim_id, size_slot)), (_, (a, b, product)) = calls[0], calls[1]
    assert self_id == x and _int(view_program, dim_id) == 0
    # tailor_prim::mul.int(int a, int b) -> int: a, b, then the return slot.
    assert a == size_slot and _int(view_program, b) == 2
    # view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
    _, (self_id, size_list, out) = calls[2]
    assert self_id == x
    items = _value(view_program, size_list).items
    assert items[0] == product and _int(view_program, items[1]) == 8
    # The slots hold the upper bound until the kernels write them.
    assert _int(view_program, size_slot) == 8 and _int(view_program, product) == 16
    out_t = _value(view_program, out)
    assert out_t.sizes == [16, 8] and out_t.dynamic is True


def test_python_number_becomes_a_scalar_overload(view_program):
    _, (self_id, other, out) = _calls(view_program)[3]
    assert _value(view_program, other) == model.Double(0.5)
    assert _value(view_program, out).sizes == [16, 8]


@pytest.mark.parametrize("batch", [1, 3, 8])
def test_view_program_runs_at_any_batch(view_program, batch):
    x = torch.randn(batch, 16)
    (got,) = run_program(view_program.data, view_program.segment, [x])
    torch.testing.assert_close(got, ViewOnDynamicDim()(x))


class SplitMaxLayerNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(8)
        self.register_buffer("offset", torch.arange(8, dtype=torch.float32))

    def forward(self, x):                         # x: (b, 8)
        y = self.ln(x) + self.offset
        y = y.masked_fill(y > 1.0, float("-inf"))
        a, b = y.split([3, 5], dim=1)
        values, indices = b.max(dim=1)
        return a.transpose(0, 1).sum(0), values, indices


@pytest.fixture(scope="module")
def split_program():
    batch = torch.export.Dim("batch", min=1, max=6)
    return export(SplitMaxLayerNorm(), (torch.randn(4, 8),), ({0: batch},))


def test_multi_output_and_list_out_ops(split_program):
    calls = dict(_calls(split_program))
    ops = split_program.operators
    assert "aten::native_layer_norm.out" in ops and "aten::max.dim_max" in ops
    # split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
    #                           Tensor(a!)[] out) -> (): the outs are one TensorList.
    _, sizes, dim, outs = calls["aten::split_with_sizes_copy.out"]
    assert isinstance(_value(split_program, outs), model.TensorList)
    assert len(_value(split_program, outs).items) == 2
    # max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
    #             Tensor(b!) max_values): both outs, then nothing (tensor returns).
    self_id, dim, keepdim, values, indices = calls["aten::max.dim_max"]
    assert _value(split_program, keepdim) == model.Bool(False)
    assert _value(split_program, indices).scalar_type == "Long"
    assert split_program.method.outputs[1:] == [values, indices]
    keys = {c.key for c in split_program.kernel_calls() if c.op == "aten::max.dim_max"}
    assert keys == {"Float;0,1|Float;0|Long;0"}
    assert_plan_is_safe(split_program.method)


def test_defaulted_and_none_arguments_get_values(split_program):
    ln = dict(_calls(split_program))["aten::native_layer_norm.out"]
    # native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
    #     Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
    assert len(ln) == 8
    assert _value(split_program, ln[4]) == model.Double(1e-5)
    # masked_fill stays whole (exporter/decompositions.py): -inf is its Scalar argument.
    fill = dict(_calls(split_program))["aten::masked_fill.Scalar_out"]
    assert _value(split_program, fill[2]) == model.Double(float("-inf"))


@pytest.mark.parametrize("batch", [1, 6])
def test_split_program_runs(split_program, batch):
    x = torch.randn(batch, 8)
    got = run_program(split_program.data, split_program.segment, [x])
    want = SplitMaxLayerNorm()(x)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)


def test_identical_constants_are_stored_once():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("a", torch.ones(5))
            self.register_buffer("b", torch.ones(5))
            self.register_buffer("c", torch.full((3,), 2.0))

        def forward(self, x):
            return x + self.a + self.b + self.c.sum()

    program = export(Tied(), (torch.randn(5),))
    offsets = [v.constant.offset for v in program.method.values
               if isinstance(v, model.Tensor) and v.constant is not None]
    assert offsets == [0, 0, 64]
    # c.sum() reads only a constant, so it is folded: the segment holds 6.0, not c.
    assert len(program.segment) == 64 + 4
    assert program.segment[64:] == torch.tensor(6.0).numpy().tobytes()


def test_returning_a_constant_copies_it_into_the_arena():
    class ReturnsBuffer(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("table", torch.arange(6.0))

        def forward(self, x):
            return x * 2, self.table

    program = export(ReturnsBuffer(), (torch.randn(6),))
    out = program.method.outputs[1]
    assert _value(program, out).allocation is not None
    assert "aten::clone.out" in program.operators
    x = torch.randn(6)
    got = run_program(program.data, program.segment, [x])
    torch.testing.assert_close(got[1], torch.arange(6.0))


def test_an_op_without_out_variant_is_an_export_error():
    @torch.library.custom_op("tailor_test::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    @twice.register_fake
    def _(x):
        return torch.empty_like(x)

    class UsesCustomOp(nn.Module):
        def forward(self, x):
            return twice(x) + 1

    with pytest.raises(ExportError, match=r"node 'twice'.*tailor_test::twice.*no out variant"
                                          r".*define its out variant with torch.library"):
        export(UsesCustomOp(), (torch.randn(3),))


def test_a_user_namespace_op_with_an_out_variant_lowers_to_it():
    lib = torch.library.Library("tailor_user_test", "DEF")
    lib.define("halve(Tensor x) -> Tensor")
    lib.define("halve.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
    lib.impl("halve", lambda x: x / 2, "CompositeExplicitAutograd")
    torch.library.register_fake("tailor_user_test::halve", lambda x: torch.empty_like(x),
                                lib=lib)

    class UsesUserOp(nn.Module):
        def forward(self, x):
            return torch.ops.tailor_user_test.halve(x)

    program = export(UsesUserOp(), (torch.randn(3),))
    assert "tailor_user_test::halve.out" in program.operators


def test_unsupported_dtype_is_an_export_error():
    class Complex(nn.Module):
        def forward(self, x):
            return torch.view_as_real(x * x)

    with pytest.raises(ExportError, match="complex64"):
        export(Complex(), (torch.randn(3, dtype=torch.complex64),))


class RepeatInterleaveCounts(nn.Module):
    """torch.repeat_interleave(r): a data-dependent length whose bound torch gives as
    int_oo, unless output_size= or a torch._check bounds it."""

    def __init__(self, bound: str = ""):
        super().__init__()
        self.bound = bound

    def forward(self, r):
        if self.bound == "output_size":
            return torch.repeat_interleave(r, output_size=7)
        y = torch.repeat_interleave(r)
        if self.bound == "check":
            torch._check(y.shape[0] <= 12)
        return y


def test_an_unbounded_data_dependent_size_names_the_op_and_the_fix():
    with pytest.raises(ExportError, match=r"node 'repeat_interleave'.*output size u\d+ of "
                                          r"aten::repeat_interleave.Tensor has no upper bound"
                                          r".*pass output_size= to repeat_interleave"
                                          r".*torch._check"):
        export(RepeatInterleaveCounts(), (torch.tensor([1, 2, 3]),))


@pytest.mark.parametrize("bound", ["output_size", "check"])
def test_a_bounded_repeat_interleave_runs(bound):
    program = export(RepeatInterleaveCounts(bound), (torch.tensor([1, 2, 3]),))
    r = torch.tensor([2, 0, 5])
    (got,) = run_program(program.data, program.segment, [r])
    torch.testing.assert_close(got, torch.repeat_interleave(r))
