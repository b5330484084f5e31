"""The first kernels' cases, then elementwise ops, activations and comparisons."""

from tests.ops.cases.spec import Dtype, DTYPE, In, Computed, Given, OpCase
from tests.ops.cases.groups import (ALL, BINARY, COMPARISONS, FLOAT, INT, MIXED, REAL,
                                    REALH, UNARY)

_NINF = float("-inf")
# 4 rows of 20: all -inf, half -inf, three -inf among values, no -inf.
MASKED_ROWS = ((_NINF,) * 20 + (_NINF,) * 10 + tuple(0.25 * i for i in range(10))
               + tuple(_NINF if i in (0, 7, 19) else 0.5 - 0.1 * i for i in range(20))
               + tuple(0.3 * i - 2.0 for i in range(20)))

# [2, 20, 2] softmaxed along dim 1: column 0 of the first plane is all -inf.
MASKED_COLUMNS = tuple(_NINF if (o == 0 and j == 0) or (o == 1 and k % 3 == 0) else 0.2 * k - j
                       for o in range(2) for k in range(20) for j in range(2))

CASES = [
    # --- existing kernels ---
    OpCase("addmm.default", ("Float",), [((3,), (2, 4), (4, 3)), ((2, 3), (2, 4), (4, 3)),
                                         ((1, 3), (2, 4), (4, 3)), ((2, 1), (2, 4), (4, 3))]),
    OpCase("addmm.default", ("Float",), [((3,), (2, 4), (4, 3))],
           kwargs={"beta": 0.5, "alpha": 2.0}, name="beta_alpha"),
    OpCase("addmm.default", ("Double", "Half", "BFloat16", "Int", "Long"),
           [((3,), (2, 4), (4, 3))], name="dtypes", domain="small"),
    OpCase("relu.default", REALH, [((2, 3),), ((),), ((0, 4),), (In((3, 2), perm=(1, 0)),)]),
    OpCase("relu.default", ("Float",), [((2, 3),)], name="rank2"),
    # The optimized relu: whole vectors of up to 16 floats, then a padded one; NaN passes.
    OpCase("relu.default", ("Float",),
           [((1,),), ((7,),), ((65,),), ((129, 3),), (Computed((5, 13), by="log"),)],
           domain="small", name="odd_sizes"),
    OpCase("permute_copy.default", ("Float", "Long", "Bool"), [((2, 3, 4),)],
           args=([2, 0, 1],)),
    OpCase("view_copy.default", ("Float", "Long"), [((2, 3, 4),)], args=([4, -1],)),

    # --- elementwise, activation, comparison, creation ---
    OpCase("add.Tensor", ALL, BINARY),
    OpCase("add.Tensor", REALH, [((2, 3), (3,))], kwargs={"alpha": 2}, name="alpha"),
    OpCase("add.Tensor", FLOAT, [((2, 3), (2, 3))], kwargs={"alpha": 0.5}, name="alpha_float"),
    OpCase("add.Tensor", ("Float",), MIXED, name="mixed"),
    OpCase("add.Scalar", REALH, [((2, 3),), ((),), ((0, 2),)], args=(2,), kwargs={"alpha": 3}),
    OpCase("add.Scalar", FLOAT, [((2, 3),)], args=(2.5,), name="float"),
    OpCase("add.Scalar", INT + ("Bool",), [((2, 3),)], args=(1.5,), name="promote"),
    OpCase("sub.Tensor", REALH, BINARY),
    OpCase("sub.Tensor", REAL, [((2, 3), (3,))], kwargs={"alpha": 2}, name="alpha"),
    OpCase("sub.Tensor", ("Float",), MIXED[:-1], name="mixed"),
    OpCase("sub.Scalar", REALH, [((2, 3),), ((0,),)], args=(2,)),
    OpCase("sub.Scalar", FLOAT, [((2, 3),)], args=(0.25,), kwargs={"alpha": 2}, name="float"),
    OpCase("mul.Tensor", ALL, BINARY),
    OpCase("mul.Tensor", ("Float",), MIXED, name="mixed"),
    OpCase("mul.Scalar", REALH, [((2, 3),), ((),)], args=(3,)),
    OpCase("mul.Scalar", INT + FLOAT, [((2, 3),)], args=(0.5,), name="float"),
    OpCase("div.Tensor", REALH, BINARY, domain="nonzero"),
    OpCase("div.Tensor", ("Float",), MIXED, domain="nonzero", name="mixed"),
    OpCase("div.Tensor_mode", REALH, BINARY, kwargs={"rounding_mode": "trunc"},
           domain="nonzero", name="trunc"),
    OpCase("div.Tensor_mode", REALH, BINARY, kwargs={"rounding_mode": "floor"},
           domain="nonzero", name="floor"),
    OpCase("div.Scalar", INT + FLOAT, [((2, 3),), ((),)], args=(2.5,)),
    OpCase("div.Scalar_mode", REALH, [((2, 3),), ((0,),)], args=(-3,),
           kwargs={"rounding_mode": "floor"}, name="floor"),
    OpCase("div.Scalar_mode", REALH, [((2, 3),)], args=(3,),
           kwargs={"rounding_mode": "trunc"}, name="trunc"),

    OpCase("where.self", ALL, [(In((2, 3), "Bool"), (2, 3), (2, 3)),
                               (In((2, 1), "Bool"), (3,), ()), (In((), "Bool"), (0, 2), (2,)),
                               (In((3, 2), "Bool", perm=(1, 0)), In((3, 2), perm=(1, 0)), (3,))]),
    OpCase("where.self", ("Float",), [(In((2, 3), "Bool"), (2, 3), In((3,), "Int")),
                                      (In((2, 3), "Bool"), In((2, 3), "Half"), In((), "Double"))],
           name="mixed"),
    # Optimized's vector paths (each operand out's shape, one element, or a block of out's
    # last dims: attention's [T, T] mask with a 0-dim -inf; one element a row) at odd
    # lengths, so ragged ends run, and broadcasts that fall back to the elementwise loop (a
    # condition broadcast along a middle dim; Row operands of different lengths).
    OpCase("where.self", ("Float",), [
        *[(In((n, n), "Bool"), (), (1, 4, n, n)) for n in (1, 7, 65, 129)],
        (In((129,), "Bool"), (129,), (129,)), (In((65, 7), "Bool"), (65, 7), (65, 7)),
        (In((), "Bool"), (7, 65), (7, 65)), (In((3, 129), "Bool"), (129,), ()),
        (In((1, 65), "Bool"), (2, 3, 65), (1, 1, 65)),
        (In((7, 1), "Bool"), (65,), (7, 65)), (In((65,), "Bool"), (7, 65), (3, 7, 65)),
        (In((7, 65), "Bool"), (7, 1), (65,)), (In((65, 1), "Bool"), (65, 1), (65, 7)),
        (In((2, 65, 1), "Bool"), (), (2, 65, 129))],
           name="broadcast"),
    # The same vector paths split over 2 threads: by rows, or by columns of one row.
    OpCase("where.self", ("Float",), [
        (In((129, 129), "Bool"), (), (4, 129, 129)), (In((64, 1), "Bool"), (64, 1), (64, 2049)),
        (In((40000,), "Bool"), (40000,), ())],
           name="threads", threads=2),
    *[OpCase(f"{op}.Tensor", ALL, BINARY, domain="small") for op in COMPARISONS],
    OpCase("lt.Tensor", ("Float",), MIXED, domain="small", name="mixed"),
    *[OpCase(f"{op}.Scalar", REALH, [((2, 3),), ((),), ((0,),)], args=(1,), domain="small")
      for op in COMPARISONS],
    OpCase("ge.Scalar", INT + ("Bool", "Float"), [((2, 3),)], args=(0.5,), domain="small",
           name="float"),
    OpCase("logical_and.default", ALL, BINARY, domain="small"),
    OpCase("logical_and.default", ("Float",), MIXED, domain="small", name="mixed"),
    OpCase("logical_or.default", ALL, BINARY, domain="small"),
    OpCase("logical_not.default", ALL, UNARY, domain="small"),
    OpCase("bitwise_not.default", INT + ("Bool",), UNARY),
    OpCase("bitwise_and.Tensor", INT + ("Bool",), BINARY),
    OpCase("bitwise_and.Tensor", ("Int",), [((2, 3), In((3,), "Char")), ((2, 3), In((3,), "Bool"))],
           name="mixed"),
    OpCase("neg.default", REALH, UNARY),
    OpCase("abs.default", REALH, UNARY),
    OpCase("rsqrt.default", REALH, UNARY, domain="positive"),
    OpCase("sqrt.default", REALH + ("Bool",), UNARY, domain="positive"),
    OpCase("exp.default", REALH + ("Bool",), UNARY),
    OpCase("log.default", REALH, UNARY, domain="positive"),
    OpCase("tanh.default", REALH, UNARY),
    OpCase("sigmoid.default", REALH, UNARY),
    OpCase("gelu.default", FLOAT, UNARY),
    OpCase("gelu.default", FLOAT, UNARY, kwargs={"approximate": "tanh"}, name="tanh"),
    OpCase("pow.Tensor_Scalar", REALH, UNARY, args=(2,), domain="small"),
    # Integer exponents in [-3, 3]: negative ones give 0 but for bases 1 and -1.
    OpCase("pow.Tensor_Tensor", REAL, [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2, 2)),
                                       ((0, 3), (3,)), (In((3, 2), perm=(1, 0)), (2, 3))],
           domain="small"),
    OpCase("pow.Tensor_Tensor", FLOAT, [((2, 3), (2, 3)), ((4, 1), (1, 5))],
           domain="positive", name="float"),
    OpCase("pow.Tensor_Tensor", ("Float",), [((2, 3), In((2, 3), "Int")),
                                             (In((2, 3), "Long"), In((), "Double"))],
           domain="positive", name="mixed"),
    OpCase("pow.Tensor_Scalar", FLOAT, UNARY, args=(0.5,), domain="positive", name="sqrt"),
    # The optimized square, sigmoid and SiLU (RMS norm's x.pow(2), EfficientNet's
    # activation): whole vectors, then the ragged end; another exponent by powf; sigmoid and
    # SiLU of NaN (the log of negative values).
    OpCase("pow.Tensor_Scalar", ("Float",), [((1,),), ((7,),), ((65,),), ((129, 3),)],
           args=(2,), name="odd_sizes"),
    OpCase("pow.Tensor_Scalar", ("Float",), [((7, 5),)], args=(3,), domain="small",
           name="cube"),
    OpCase("sigmoid.default", ("Float",),
           [((1,),), ((7,),), ((65,),), ((129, 3),), (Computed((5, 13), by="log"),)],
           name="odd_sizes"),
    OpCase("silu.default", ("Float",),
           [((1,),), ((7,),), ((65,),), ((129, 3),), (Computed((5, 13), by="log"),)],
           name="odd_sizes"),
    # Past exp's range (+-1e20, +-inf, ...): e^-x is inf, so sigmoid is 0 and SiLU -0 (NaN
    # at -inf), as torch.
    *[OpCase(f"{op}.default", ("Float",), [((24,),)], domain="edges", name="overflow")
      for op in ("sigmoid", "silu")],
    OpCase("pow.Tensor_Scalar", INT, [((2, 3),)], args=(1.5,), domain="positive",
           name="promote"),
    OpCase("full.default", ALL, [()], args=([2, 3], 1), kwargs={"dtype": DTYPE}),
    OpCase("full.default", FLOAT, [()], args=([0, 3], 2.5), kwargs={"dtype": DTYPE},
           name="float"),
    OpCase("full_like.default", ALL, [((2, 3),), ((),)], args=(1,)),
    OpCase("full_like.default", ("Float",), [((2, 3),)], args=(2,),
           kwargs={"dtype": Dtype("Long")}, name="dtype"),
    OpCase("scalar_tensor.default", ALL, [()], args=(1,), kwargs={"dtype": DTYPE}),
    OpCase("arange.start_step", REALH, [()], args=(1, 11, 3), kwargs={"dtype": DTYPE}),
    # Float bounds with an integer dtype: torch truncates them before counting.
    OpCase("arange.start_step", ("Long", "Int"), [()], args=(-0.9, 2.1, 2.0),
           kwargs={"dtype": DTYPE}, name="truncated"),
    OpCase("arange.start_step", ("Long",), [()], args=(0.0, -8.000001, -4.0),
           kwargs={"dtype": DTYPE}, name="truncated_down"),
    OpCase("arange.start_step", FLOAT, [()], args=(-1.5, 2.0, 0.25), kwargs={"dtype": DTYPE},
           name="float"),
    OpCase("arange.default", ("Long", "Float"), [()], args=(5,), kwargs={"dtype": DTYPE},
           name="end"),
    OpCase("clone.default", ALL, UNARY),
    OpCase("_to_copy.default", ALL, UNARY, kwargs={"dtype": Dtype("Float")}, domain="small",
           name="to_float"),
    OpCase("_to_copy.default", ALL, [(In((2, 3), "Float", domain="positive"),)],
           kwargs={"dtype": DTYPE}, name="from_float"),
    OpCase("_to_copy.default", ("Half",), [((2, 3),)], kwargs={"dtype": Dtype("BFloat16")},
           name="half_bfloat16"),
    # Floats that do not fit the integer dtype (inf, NaN, -1e20, -501 into Byte, ...):
    # defined in the kernels (runtime/core/element_cast.h) and equal to torch on x86-64,
    # one element at a time and in whole vectors.
    *[OpCase("_to_copy.default", FLOAT, [((3, 24),), ((129,),)], kwargs={"dtype": Dtype(to)},
             domain="edges", name=f"edges_to_{to.lower()}")
      for to in ("Byte", "Char", "Short", "Int", "Long", "Bool")],
    OpCase("_softmax.default", FLOAT, [((2, 5),), ((),), ((0, 3),), (In((5, 2), perm=(1, 0)),)],
           args=(-1, False)),
    OpCase("_softmax.default", FLOAT, [((3, 4, 2),)], args=(1, False), name="dim1"),
    OpCase("_softmax.default", FLOAT, [((3, 4),)], args=(0, False), name="dim0"),
    OpCase("_log_softmax.default", FLOAT, [((2, 5),), ((),), (In((5, 2), perm=(1, 0)),)],
           args=(-1, False)),
    OpCase("_log_softmax.default", FLOAT, [((3, 4, 2),)], args=(1, False), name="dim1"),
    # scaled_dot_product_attention's softmax, lowered to tailor_nn::safe_softmax: rows of
    # only -inf give 0, rows with some -inf the softmax of the rest. Lengths 5, 20 and 37
    # end off a vector at every width (the kernel's overlapping last vector).
    OpCase("_safe_softmax.default", FLOAT,
           [((2, 5),), ((3, 37),), (Given((4, 20), values=MASKED_ROWS),),
            (In((5, 2), perm=(1, 0)),), ((0, 3),)], args=(-1,)),
    OpCase("_safe_softmax.default", FLOAT,
           [(Given((2, 20, 2), values=MASKED_COLUMNS),)], args=(1,), name="dim1"),
]
