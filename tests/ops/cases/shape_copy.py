"""Issue 29: shape, copy and padding ops."""

from tests.ops.cases.spec import In, Given, Tensors, Arg, OpCase
from tests.ops.cases.groups import ALL, FLOAT, INT, REALH

# --- issue 29: shape, copy and padding ---
# repeat, repeat_interleave, roll, tril/triu, stack, unbind, narrow_copy, diagonal,
# unfold, as_strided, pixel (un)shuffle, reflection/replication pads, antialiased
# bilinear resize, glu, logit, cdist, pdist. Each op's first case calls it once per
# declared dtype in one program (the "specials" domain: NaN, infinities, -0.0 and integer
# ends must come through a copy bit for bit); the others vary its arguments in Float:
# odd shapes, empty tensors, permuted inputs, arguments at their edges.


def _per_dtype(dtypes, *items, domain="specials") -> list:
    """One call per dtype: a tensor input of each shape in `items` of that dtype, and
    every other item (an Arg) as it is."""
    return [tuple(In(i, d, domain=domain) if isinstance(i, tuple) else i for i in items)
            for d in dtypes]


def _stacked(dtypes, shape, count, dim) -> list:
    return [(Tensors(tuple(In(shape, d, domain="specials") for _ in range(count))), Arg(dim))
            for d in dtypes]


INF = float("inf")

CASES = [
    OpCase("repeat.default", ("Float",), _per_dtype(ALL, (2, 3), Arg([2, 1, 3])),
           name="dtypes"),
    OpCase("repeat.default", ("Float",),
           [((2, 3), Arg([1, 1])), ((3,), Arg([2, 2])), ((0, 3), Arg([2, 1])),
            ((2, 3), Arg([0, 2])), ((), Arg([3])), ((), Arg([])), ((5, 7), Arg([3, 2])),
            ((2, 1, 3), Arg([1, 4, 1, 2])), (In((3, 2), perm=(1, 0)), Arg([2, 1, 1]))]),
    # repeat_interleave: of a repeats tensor (its own kernel), of a tensor by a repeats
    # tensor (that, then index_select) and by an int (expand_copy and view_copy).
    OpCase("repeat_interleave.Tensor", ("Long", "Int"),
           [(Given((4,), values=(2, 0, 1, 3)),), (Given((3,), values=(0, 6, 0)),)],
           kwargs={"output_size": 6}),
    OpCase("repeat_interleave.Tensor", ("Long",), [(Given((2,), values=(0, 0)),)],
           kwargs={"output_size": 0}, name="empty"),
    OpCase("repeat_interleave.self_Tensor", ("Float", "Bool"),
           [((3, 2), Given((3,), "Long", values=(1, 0, 2))),
            ((2, 3), Given((2,), "Long", values=(2, 1)))],
           args=(0,), kwargs={"output_size": 3}, domain="specials"),
    OpCase("repeat_interleave.self_int", ("Float", "Int"), [((2, 3),), ((0, 2),)], args=(2, 1)),
    OpCase("roll.default", ("Float",), _per_dtype(ALL, (3, 4), Arg([1, -2]), Arg([0, 1])),
           name="dtypes"),
    OpCase("roll.default", ("Float",),
           [((5,), Arg([2])), ((2, 3), Arg([7])), ((2, 3, 4), Arg([1, 2]), Arg([0, 0])),
            ((0, 3), Arg([1]), Arg([1])), ((4, 5), Arg([100]), Arg([-1])),
            ((3, 1, 4), Arg([-5, 3]), Arg([2, 1])), (In((3, 2), perm=(1, 0)), Arg([-1]), Arg([1]))]),
    *[OpCase(f"{op}.default", ("Float",), _per_dtype(ALL, (3, 4)), name="dtypes")
      for op in ("tril", "triu")],
    *[OpCase(f"{op}.default", ("Float",),
             [((4, 3), Arg(1)), ((2, 3, 5), Arg(-1)), ((0, 3), Arg(0)), ((3, 3), Arg(10)),
              ((3, 3), Arg(-10)), ((1, 7),), (In((4, 3), perm=(1, 0)), Arg(2))])
      for op in ("tril", "triu")],
    OpCase("stack.default", ("Float",), _stacked(ALL, (2, 3), 3, 1), name="dtypes"),
    OpCase("stack.default", ("Float",),
           [(Tensors(((2, 3), (2, 3))), Arg(0)), (Tensors(((2, 3), (2, 3))), Arg(-1)),
            (Tensors(((), (), ())), Arg(0)), (Tensors(((0, 3), (0, 3))), Arg(1)),
            (Tensors(((4,),)), Arg(0)), (Tensors(((2, 1, 3), (2, 1, 3))), Arg(-2)),
            (Tensors((In((3, 2), perm=(1, 0)), (2, 3))), Arg(1))]),
    OpCase("unbind.int", ("Float",), _per_dtype(ALL, (3, 2)), name="dtypes"),
    OpCase("unbind.int", ("Float",),
           [((2, 3, 4), Arg(1)), ((2, 3), Arg(-1)), ((1,), Arg(0)), ((3, 0), Arg(0)),
            (In((3, 2), perm=(1, 0)), Arg(1))]),
    OpCase("narrow_copy.default", ("Float",), _per_dtype(ALL, (4, 5), Arg(1), Arg(1), Arg(3)),
           name="dtypes"),
    OpCase("narrow_copy.default", ("Float",),
           [((4, 5), Arg(0), Arg(-2), Arg(2)), ((4, 5), Arg(1), Arg(0), Arg(0)),
            ((6,), Arg(0), Arg(5), Arg(1)), ((2, 3, 4), Arg(-1), Arg(1), Arg(3)),
            (In((3, 4), perm=(1, 0)), Arg(1), Arg(2), Arg(1))]),
    OpCase("diagonal.default", ("Float",), _per_dtype(ALL, (3, 4)), name="dtypes"),
    OpCase("diagonal.default", ("Float",),
           [((3, 4), Arg(1)), ((3, 4), Arg(-2)), ((2, 3, 4), Arg(0), Arg(1), Arg(2)),
            ((2, 3, 4), Arg(-1), Arg(2), Arg(0)), ((3, 4), Arg(5)), ((4, 3, 2), Arg(0), Arg(-1), Arg(0)),
            ((0, 3),), (In((3, 4), perm=(1, 0)), Arg(1))]),
    OpCase("unfold.default", ("Float",), _per_dtype(ALL, (2, 7), Arg(1), Arg(3), Arg(2)),
           name="dtypes"),
    OpCase("unfold.default", ("Float",),
           [((7,), Arg(0), Arg(2), Arg(3)), ((3, 4, 5), Arg(1), Arg(4), Arg(1)),
            ((3, 4), Arg(-1), Arg(1), Arg(1)), ((), Arg(0), Arg(1), Arg(1)),
            ((2, 5), Arg(1), Arg(0), Arg(2)), (In((4, 3), perm=(1, 0)), Arg(0), Arg(2), Arg(1))]),
    OpCase("as_strided.default", ("Float",),
           _per_dtype(ALL, (3, 4), Arg([2, 2]), Arg([1, 2]), Arg(1)), name="dtypes"),
    OpCase("as_strided.default", ("Float",),
           [((3, 4), Arg([4, 3]), Arg([1, 4])), ((6,), Arg([2, 3]), Arg([0, 1])),
            ((3, 4), Arg([0, 2]), Arg([1, 1])), ((2, 3, 4), Arg([3, 2]), Arg([5, 7]), Arg(2)),
            ((5,), Arg([]), Arg([]), Arg(4))]),
    OpCase("pixel_shuffle.default", ("Float",), _per_dtype(ALL, (1, 8, 2, 3), Arg(2)),
           name="dtypes"),
    OpCase("pixel_shuffle.default", ("Float",),
           [((2, 9, 2, 2), Arg(3)), ((18, 1, 1), Arg(3)), ((2, 1, 4, 2, 3), Arg(2)),
            ((0, 4, 2, 2), Arg(2)), ((1, 3, 2, 2), Arg(1)), ((1, 4, 3, 5), Arg(2))]),
    OpCase("pixel_unshuffle.default", ("Float",), _per_dtype(ALL, (1, 2, 4, 6), Arg(2)),
           name="dtypes"),
    # No empty input: eager returns it unchanged in shape, torch.export plans (N, C*r*r,
    # H/r, W/r) for it; the program can only have the planned shape.
    OpCase("pixel_unshuffle.default", ("Float",),
           [((2, 1, 6, 3), Arg(3)), ((1, 4, 2), Arg(2)),
            ((2, 3, 2, 4, 6), Arg(2)), ((1, 3, 5, 5), Arg(1))]),
    # Pads: reflection needs each pad below its dim's size, replication does not;
    # negative pads crop; the batch dim may be empty.
    OpCase("reflection_pad1d.default", ("Float",), _per_dtype(REALH, (2, 5), Arg([2, 3])),
           name="dtypes"),
    OpCase("reflection_pad1d.default", ("Float",),
           [((1, 3, 7), Arg([0, 6])), ((2, 3, 4), Arg([-1, 2])), ((0, 3, 4), Arg([1, 1])),
            ((1, 1, 1), Arg([0, 0])), ((3, 129), Arg([128, 1]))]),
    OpCase("reflection_pad2d.default", ("Float",),
           _per_dtype(REALH, (2, 4, 5), Arg([1, 2, 3, 0])), name="dtypes"),
    OpCase("reflection_pad2d.default", ("Float",),
           [((1, 2, 3, 3), Arg([2, 2, 2, 2])), ((2, 3, 1, 4), Arg([3, 0, 0, 0])),
            ((0, 2, 3, 3), Arg([1, 1, 1, 1])), ((1, 5, 6), Arg([-1, 0, 2, -2])),
            (In((1, 4, 3), perm=(0, 2, 1)), Arg([1, 1, 2, 0]))]),
    OpCase("reflection_pad3d.default", ("Float",),
           _per_dtype(REALH, (1, 2, 3, 4, 5), Arg([1, 2, 0, 3, 2, 1])), name="dtypes"),
    OpCase("reflection_pad3d.default", ("Float",),
           [((2, 3, 3, 3), Arg([2, 2, 2, 2, 2, 2])), ((0, 1, 2, 2, 2), Arg([1, 1, 1, 1, 1, 1])),
            ((1, 1, 4, 1, 5), Arg([-1, 3, 0, 0, 3, -2]))]),
    OpCase("replication_pad1d.default", ("Float",), _per_dtype(REALH, (2, 5), Arg([2, 3])),
           name="dtypes"),
    OpCase("replication_pad1d.default", ("Float",),
           [((1, 3, 2), Arg([5, 0])), ((2, 3, 4), Arg([-1, 2])), ((0, 3, 4), Arg([1, 1])),
            ((1, 1, 1), Arg([3, 4])), ((3, 129), Arg([0, -128]))]),
    OpCase("replication_pad2d.default", ("Float",),
           _per_dtype(REALH, (2, 4, 5), Arg([1, 2, 3, 0])), name="dtypes"),
    OpCase("replication_pad2d.default", ("Float",),
           [((1, 2, 3, 3), Arg([4, 4, 4, 4])), ((2, 3, 1, 1), Arg([3, 0, 0, 2])),
            ((0, 2, 3, 3), Arg([1, 1, 1, 1])), ((1, 5, 6), Arg([-1, 0, 2, -2])),
            (In((1, 4, 3), perm=(0, 2, 1)), Arg([1, 1, 2, 0]))]),
    OpCase("replication_pad3d.default", ("Float",),
           _per_dtype(REALH, (1, 2, 3, 4, 5), Arg([1, 2, 0, 3, 2, 1])), name="dtypes"),
    OpCase("replication_pad3d.default", ("Float",),
           [((2, 3, 3, 3), Arg([3, 3, 3, 3, 3, 3])), ((0, 1, 2, 2, 2), Arg([1, 1, 1, 1, 1, 1])),
            ((1, 1, 4, 1, 5), Arg([-1, 3, 0, 0, 3, -2]))]),
    # How F.pad with mode="reflect" / "replicate" reaches them.
    OpCase("pad.default", ("Float", "Int"),
           [((2, 5), Arg([2, 3]), Arg("reflect")), ((1, 2, 4, 5), Arg([1, 2, 3, 0]), Arg("reflect")),
            ((1, 2, 3, 4, 5), Arg([1, 1, 1, 1, 1, 1]), Arg("reflect")),
            ((2, 5), Arg([4, 3]), Arg("replicate")),
            ((1, 2, 4, 5), Arg([1, 2, 3, 0]), Arg("replicate")),
            ((1, 2, 3, 4, 5), Arg([1, 1, 1, 1, 1, 1]), Arg("replicate"))], name="modes"),
    # Antialiased bilinear resize: shrinking (the widened filter), growing, one dim kept,
    # align_corners, given scales, down to 1x1.
    OpCase("_upsample_bilinear2d_aa.default", ("Float", "Double"),
           [((1, 2, 9, 7), Arg([4, 3]), Arg(False)), ((2, 1, 4, 5), Arg([7, 9]), Arg(False)),
            ((1, 1, 8, 8), Arg([3, 5]), Arg(True)), ((1, 2, 5, 6), Arg([5, 2]), Arg(False)),
            ((1, 1, 9, 9), Arg([4, 4]), Arg(False), Arg(0.45), Arg(0.45)),
            ((1, 1, 3, 3), Arg([1, 1]), Arg(False)), ((1, 3, 16, 5), Arg([5, 5]), Arg(False))]),
    OpCase("_upsample_bilinear2d_aa.vec", ("Float",),
           [((1, 2, 9, 7), Arg([4, 3]), Arg(False), Arg(None)),
            ((1, 2, 9, 7), Arg(None), Arg(False), Arg([0.5, 0.3]))]),
    OpCase("glu.default", FLOAT, [(In((4, 6), domain="specials"), Arg(-1))], name="dtypes"),
    OpCase("glu.default", ("Float",),
           [((4, 6), Arg(0)), ((0, 4), Arg(1)), ((2, 2), Arg(-1)), ((3, 130), Arg(1)),
            (In((6, 3), perm=(1, 0)), Arg(1))], domain="specials", name="shapes"),
    # logit: integer and Bool inputs give Float; eps clamps (a negative one does not).
    OpCase("logit.default", ("Float",), _per_dtype(("Bool",) + INT, (4, 6), domain="positive"),
           name="integers"),
    OpCase("logit.default", FLOAT, [((4, 6),), (In((4, 6), domain="specials"), Arg(0.25)),
                                    ((0, 3),), (In((2, 5), domain="specials"), Arg(-1.0))],
           domain="positive", name="eps_edges"),
    # Distances: p = 2 by differences, and by matrix products past 25 rows (compute_mode
    # None or 0) or when asked (1); p = 0, 1, inf and fractional; broadcast batches;
    # empty inputs.
    OpCase("_cdist_forward.default", ("Float", "Double"),
           [((3, 4), (5, 4), Arg(2.0), Arg(None)), ((3, 4), (5, 4), Arg(1.0), Arg(None)),
            (In((3, 4), domain="small"), In((5, 4), domain="small"), Arg(0.0), Arg(None)),
            ((3, 4), (5, 4), Arg(INF), Arg(None)), ((3, 4), (2, 4), Arg(3.0), Arg(None)),
            ((3, 4), (2, 4), Arg(0.5), Arg(None)), ((2, 1, 3, 4), (3, 5, 4), Arg(2.0), Arg(None)),
            ((30, 4), (5, 4), Arg(2.0), Arg(None)), ((3, 4), (5, 4), Arg(2.0), Arg(1)),
            ((30, 3), (2, 3), Arg(2.0), Arg(2)), ((0, 4), (5, 4), Arg(2.0), Arg(None)),
            ((3, 0), (2, 0), Arg(1.0), Arg(None))]),
    OpCase("cdist.default", ("Float",), [((3, 4), (5, 4)), ((2, 6, 3), (2, 7, 3))],
           args=(1.5,)),
    OpCase("_pdist_forward.default", ("Float", "Double"),
           [((5, 4), Arg(2.0)), (In((5, 4), domain="small"), Arg(0.0)), ((5, 4), Arg(1.0)),
            ((5, 4), Arg(INF)), ((6, 3), Arg(3.0)), ((1, 3), Arg(2.0)), ((4, 0), Arg(2.0))]),
    OpCase("pdist.default", ("Float",), [((5, 4),), ((2, 7),)]),
]
