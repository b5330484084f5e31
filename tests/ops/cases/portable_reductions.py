"""Issue 29: reductions and indexing of ExecuTorch's portable set."""

from tests.ops.cases.spec import Dtype, In, Given, Arg, OpCase
from tests.ops.cases.groups import ALL, FLOAT, INT, REALH

# --- reductions and indexing of ExecuTorch's portable set (issue 29) ---
# Ties: max.dim/min.dim return the first of equal elements (torch's documented rule; the
# "small" domain makes many); topk's order among equal elements is open in torch, so its
# "ties" case compares the values alone. NaN beats every number in max/min/amin and is the
# largest value in topk. Index inputs are Given (in range, repeats where the op allows).
_NAN = float("nan")
_DISTINCT = (7, 19, 3, 12, 0, 15, 9, 20, 5, 1, 17, 11, 14, 2, 8, 18, 6, 13, 4, 10, 16)
# One NaN per row: the rest distinct.
_NAN_ROWS = (1.5, _NAN, -2.0, 0.25, 3.0, -7.0, 0.5, -1.0, 2.0, _NAN, -3.5, 4.0)
# scatter calls: (self, dim, index, src) with a repeated index (dim 0: rows 2 and 2 in
# column 1), another dim, 1-d, an empty index and 0-d tensors.
_SCATTER = [
    ((3, 5), Arg(0), Given((2, 4), "Long", values=(0, 2, 1, 0, 2, 2, 0, 1)), (2, 5)),
    ((4, 3), Arg(1), Given((4, 2), "Long", values=(2, 0, 1, 1, 0, 2, 2, 2)), (4, 3)),
    ((3,), Arg(0), Given((2,), "Long", values=(2, 0)), (3,)),
    ((3, 5), Arg(0), Given((0, 4), "Long", values=()), (2, 5)),
    ((), Arg(0), Given((), "Long", values=(0,)), ()),
]
_SCATTER_VALUE = [call[:3] for call in _SCATTER]
# masked_fill's calls: the mask of self's shape, broadcast over self, broadcasting self
# (the out takes the broadcast shape), a 0-d self, an empty one, a permuted one.
_MASKED_FILL = [((3, 4), In((3, 4), "Bool")), ((3, 4), In((4,), "Bool")),
                ((4,), In((3, 4), "Bool")), ((), In((2,), "Bool")), ((0, 4), In((4,), "Bool")),
                (In((4, 3), perm=(1, 0)), In((3, 1), "Bool"))]

CASES = [
    OpCase("amin.default", ALL, [((3, 4, 5),), ((4,),), ((0, 3),)], args=([-1],)),
    OpCase("amin.default", ("Float", "Long", "Bool"), [((3, 4, 5),), ((),)], args=([], True),
           name="all"),
    OpCase("amin.default", ("Float", "Int"), [((3, 4, 5),)], args=([0, 2],), name="dims"),
    OpCase("amin.default", ("Float", "Half", "Long"), [((4, 6),)], args=([1],),
           domain="specials", name="specials"),
    OpCase("max.dim", ALL, [((3, 5), Arg(1)), ((2, 3, 4), Arg(0), Arg(True)), ((0, 4), Arg(1)),
                            ((), Arg(0))], domain="small"),
    OpCase("max.dim", ("Float", "Double", "Half", "Long"), [((6, 8), Arg(1))],
           domain="specials", name="specials"),
    OpCase("min.dim", ALL, [((3, 5), Arg(1)), ((2, 3, 4), Arg(-1), Arg(True)), ((0, 4), Arg(1)),
                            ((), Arg(-1))], domain="small"),
    OpCase("min.dim", ("Float", "Double", "Half", "Long"), [((6, 8), Arg(0))],
           domain="specials", name="specials"),
    OpCase("max.default", ALL, [((3, 4),), ((),), ((1,),)]),
    OpCase("min.default", ALL, [((3, 4),), ((),), ((1,),)]),
    OpCase("max.default", ("Float", "Half", "Long"), [((5, 5),), ((2,),)], domain="specials",
           name="specials"),
    OpCase("min.default", ("Float", "Half", "Long"), [((5, 5),), ((2,),)], domain="specials",
           name="specials"),
    OpCase("prod.default", ALL, [((3, 4),), ((0,),), ((),)], domain="small"),
    OpCase("prod.default", INT, [((3, 5),)], domain="huge", name="wraps"),
    OpCase("prod.default", ("Int", "Float"), [((2, 3),)], kwargs={"dtype": Dtype("Double")},
           domain="small", name="dtype"),
    OpCase("prod.dim_int", ALL, [((3, 4, 2), Arg(1)), ((2, 0), Arg(1)), ((2, 0), Arg(0), Arg(True)),
                                 ((), Arg(0))], domain="small"),
    OpCase("prod.dim_int", ("Float", "Long"), [((2, 3), Arg(-1), Arg(True))],
           kwargs={"dtype": Dtype("Float")}, domain="small", name="dtype"),
    # var: one element and an empty dim give NaN; N <= correction gives inf.
    OpCase("var.correction", FLOAT, [((3, 5), Arg([1])), ((4,), Arg(None)),
                                     ((2, 3, 4), Arg([0, 2])), ((3, 1), Arg([1])),
                                     ((0, 3), Arg([0]))]),
    OpCase("var.correction", ("Float", "Double"), [((3, 5), Arg([1])), ((2, 3), Arg(None))],
           kwargs={"correction": 0, "keepdim": True}, name="biased_keepdim"),
    OpCase("var.correction", ("Float",), [((2, 5), Arg([0])), ((3, 4), Arg([1]))],
           kwargs={"correction": 2.5}, name="large_correction"),
    OpCase("var.correction", ("Float",), [((4, 6),)], domain="specials", name="specials"),
    OpCase("var_mean.correction", FLOAT, [((3, 5), Arg([1])), ((4,), Arg(None)),
                                          ((3, 1), Arg([1])), ((0, 3), Arg([0]))]),
    OpCase("var_mean.correction", ("Float", "Double"), [((2, 3, 4), Arg([0, 2]))],
           kwargs={"correction": 0, "keepdim": True}, name="biased_keepdim"),
    # topk(self, k, dim=-1, largest=True, sorted=True): distinct values (exact indices),
    # k = 0 and k = n, a 0-d and an empty input, smallest along dim 0, unsorted with k = 1.
    OpCase("topk.default", REALH,
           [(Given((3, 7), values=_DISTINCT), Arg(3)),
            (Given((3, 7), values=_DISTINCT), Arg(2), Arg(0), Arg(False)),
            (Given((7,), values=_DISTINCT[:7]), Arg(7)),
            (Given((3, 7), values=_DISTINCT), Arg(0)),
            (Given((), values=(5,)), Arg(1)),
            (Given((0, 4), values=()), Arg(2)),
            (Given((3, 7), values=_DISTINCT), Arg(1), Arg(1), Arg(True), Arg(False))]),
    OpCase("topk.default", ("Float", "Double", "Half", "BFloat16"),
           [(Given((2, 6), values=_NAN_ROWS), Arg(3)),
            (Given((2, 6), values=_NAN_ROWS), Arg(3), Arg(-1), Arg(False)),
            (Given((2, 6), values=_NAN_ROWS), Arg(6), Arg(1), Arg(False))], name="nan"),
    OpCase("topk.default", REALH, [((4, 9), Arg(4)), ((4, 9), Arg(5), Arg(1), Arg(False))],
           domain="small", outputs=(0,), name="ties"),
    # Data-dependent output sizes (planned at the input's element count).
    OpCase("nonzero.default", ALL, [((3, 4),), ((5,),), ((),), ((0, 3),), ((2, 3, 2),)],
           domain="small"),
    OpCase("nonzero.default", ("Float", "Half"), [((4, 6),)], domain="specials",
           name="specials"),
    OpCase("masked_select.default", ALL,
           [((3, 4), In((3, 4), "Bool")), ((3, 4), In((4,), "Bool")),
            ((4,), In((3, 4), "Bool")), ((0, 2), In((2,), "Bool")), ((), In((3,), "Bool"))]),
    OpCase("masked_scatter.default", ALL,
           [((3, 4), In((3, 4), "Bool"), (12,)), ((3, 4), In((4,), "Bool"), (2, 8)),
            ((4,), In((2, 4), "Bool"), (9,)), ((0, 2), In((2,), "Bool"), (0,))]),
    OpCase("scatter.src", ALL, _SCATTER),
    OpCase("scatter.value", ALL, _SCATTER_VALUE, args=(3,)),
    OpCase("scatter.reduce", ALL, _SCATTER, kwargs={"reduce": "add"}, name="add"),
    OpCase("scatter.reduce", ("Float", "Half", "Long", "Bool"), _SCATTER,
           kwargs={"reduce": "multiply"}, domain="small", name="multiply"),
    OpCase("scatter.value_reduce", ALL, _SCATTER_VALUE, args=(2,), kwargs={"reduce": "add"},
           name="add"),
    OpCase("scatter.value_reduce", ("Float", "Half", "Char", "Bool"), _SCATTER_VALUE,
           args=(3,), kwargs={"reduce": "multiply"}, name="multiply"),
    OpCase("scatter_add.default", ALL, _SCATTER),
    # torch takes an Int index too (OpInfo scatter's samples have some).
    OpCase("scatter.src", ("Float", "Long"),
           [((3, 5), Arg(0), Given((2, 4), "Int", values=(0, 2, 1, 0, 2, 2, 0, 1)), (2, 5))],
           name="int_index"),
    OpCase("scatter_add.default", ("Float",),
           [((4, 3), Arg(1), Given((4, 2), "Int", values=(2, 0, 1, 1, 0, 2, 2, 2)), (4, 3))],
           name="int_index"),
    # slice_scatter(self, src, dim=0, start=None, end=None, step=1)
    OpCase("slice_scatter.default", ALL,
           [((4, 5), (2, 5), Arg(0), Arg(1), Arg(3)),
            ((4, 5), (4, 2), Arg(1), Arg(-3), Arg(None), Arg(2)),
            ((4, 5), (0, 5), Arg(0), Arg(2), Arg(2)),
            ((3,), (3,))]),
    # masked_fill and select_scatter stay whole (exporter/decompositions.py). masked_fill
    # broadcasts self and mask both ways (out-of-place); its value converts to self's dtype.
    OpCase("masked_fill.Scalar", ALL, _MASKED_FILL, args=(1,)),
    OpCase("masked_fill.Scalar", FLOAT, [((2, 3), In((2, 3), "Bool"))], args=(float("-inf"),),
           name="minus_inf"),
    OpCase("masked_fill.Scalar", INT + ("Bool",), [((3, 4), In((3, 4), "Bool"))], args=(2.7,),
           name="truncates"),
    OpCase("masked_fill.Tensor", ALL, [(*call, ()) for call in _MASKED_FILL]),
    OpCase("masked_fill.Tensor", ("Float", "Int"),
           [((3, 4), In((4,), "Bool"), In((), "Double")), ((3, 4), In((3, 4), "Bool"),
                                                         In((), "Bool")),
            ((3, 4), In((3, 4), "Bool"), In((), "Half"))], name="value_dtype"),
    # select_scatter(self, src, dim, index): src has self's shape without dim.
    OpCase("select_scatter.default", ALL,
           [((4, 5), (5,), Arg(0), Arg(1)), ((4, 5), (4,), Arg(1), Arg(-1)),
            ((2, 3, 4), (2, 4), Arg(1), Arg(2)), ((3,), (), Arg(0), Arg(-3)),
            ((0, 5), (0,), Arg(1), Arg(4)), ((1, 7, 65), (1, 65), Arg(-2), Arg(6))]),
]
