"""The operators the exporter keeps whole (exporter/decompositions.py) reach the program
as one call each, where torch's core-ATen table would write several ops and their
intermediates; the ones left to the table still decompose."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from exporter.decompositions import KEPT_WHOLE
from exporter.export import export

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


class Call(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(*inputs)


def _operators(fn, *inputs) -> list:
    return sorted(set(export(Call(fn), inputs).operators))


x4 = torch.rand(1, 8, 4, 4)
WHOLE = [
    (lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), (x4,), "aten::reflection_pad2d.out"),
    (lambda x: F.pad(x, (1, 2), mode="replicate"), (torch.rand(2, 3, 5),),
     "aten::replication_pad1d.out"),
    (lambda x: F.pad(x, (1,) * 6, mode="reflect"), (torch.rand(1, 2, 3, 3, 3),),
     "aten::reflection_pad3d.out"),
    (lambda x: F.pixel_shuffle(x, 2), (x4,), "aten::pixel_shuffle.out"),
    (lambda x: F.pixel_unshuffle(x, 2), (x4,), "aten::pixel_unshuffle.out"),
    (lambda x: F.glu(x, 1), (x4,), "aten::glu.out"),
    (lambda x: F.silu(x), (x4,), "aten::silu.out"),
    (lambda x: torch.logit(x, 1e-3), (x4,), "aten::logit.out"),
    (lambda x: x.roll(1, 2), (x4,), "aten::roll.out"),
    (lambda x: x.triu(1), (x4,), "aten::triu.out"),
    (lambda x: x.tril(-1), (x4,), "aten::tril.out"),
    (lambda x: torch.stack([x, x], 1), (x4,), "aten::stack.out"),
    (lambda x: x.unbind(1), (x4,), "aten::unbind_copy.int_out"),
    (lambda x: x // 2, (x4,), "aten::floor_divide.Scalar_out"),
    (lambda x, y: torch.floor_divide(x, y), (x4, x4 + 1), "aten::floor_divide.out"),
    (lambda x, m: x.masked_fill(m, -1.0), (x4, x4 > 0.5), "aten::masked_fill.Scalar_out"),
    (lambda x, m, v: x.masked_fill(m, v), (x4, x4 > 0.5, torch.tensor(2.0)),
     "aten::masked_fill.Tensor_out"),
    (lambda x, s: torch.select_scatter(x, s, 1, 2), (x4, torch.rand(1, 4, 4)),
     "aten::select_scatter.out"),
]


def test_each_kept_operator_is_one_call():
    """One program calling each: its operators are exactly the kept ones (one export)."""
    def every(*inputs):
        outs = []
        for (fn, _, _), args in zip(WHOLE, inputs):
            result = fn(*args)
            outs += result if isinstance(result, tuple) else [result]
        return tuple(outs)

    inputs = [args for _, args, _ in WHOLE]
    assert _operators(lambda *flat: every(*_split(flat, inputs)), *[t for a in inputs for t in a]) \
        == sorted({op for _, _, op in WHOLE})


def _split(flat, shapes):
    """The flat inputs regrouped like `shapes` (a list of argument tuples)."""
    it = iter(flat)
    return [tuple(next(it) for _ in args) for args in shapes]


def test_every_kept_operator_is_tested_here():
    base = lambda name: name.partition("::")[2].partition(".")[0].removesuffix("_copy")  # noqa: E731
    # The pads of the other ranks are the same rule (their op cases run each).
    kept = {base(op.name()) for op in KEPT_WHOLE} - {
        f"{mode}_pad{k}d" for mode in ("reflection", "replication") for k in (1, 2, 3)}
    tested = {base(op) for _, _, op in WHOLE}
    assert kept <= tested


def test_rsub_is_left_to_sub():
    """rsub becomes sub.out: the same one pass, served by the optimized library and XNNPACK."""
    assert _operators(lambda x: 1 - x, torch.rand(3)) == ["aten::sub.out"]
