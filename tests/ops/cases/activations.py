"""Activations, trigonometry, ExecuTorch's portable elementwise ops (issue 29),
logical reductions, scans and copies."""

from tests.ops.cases.spec import Dtype, DTYPE, In, Computed, Arg, OpCase
from tests.ops.cases.groups import (ALL, BINARY, FLOAT, INT, INT_PAIRS, INT_PAIR_DOMAINS,
                                    MIXED, REALH, SPECIAL_PAIRS, UNARY, each_dtype)

CASES = [
    # --- activations, trigonometry, logical reductions, scans ---
    # NaN and infinities: a log before the op, on the "small" domain (log of -3..3 gives
    # NaN, -inf, 0 and finite values). Integer bounds stay >= 0 where Byte runs (torch
    # rejects negative bounds for unsigned tensors).
    OpCase("clamp.default", REALH, UNARY, args=(1, 4), name="bounds"),
    OpCase("clamp.default", FLOAT, UNARY, args=(-0.5, 0.75), name="float"),
    OpCase("clamp.default", REALH, [((2, 3),), ((),), ((0, 2),)], args=(2,), name="only_min"),
    OpCase("clamp.default", REALH, [((2, 3),), (In((4, 3), perm=(1, 0)),)], args=(None, 3),
           name="only_max"),
    OpCase("clamp.default", REALH, [((2, 3),), ((),)], args=(3, 1), name="min_above_max"),
    OpCase("clamp.default", INT + ("Bool",), [((2, 3),), ((),)], args=(0.5, 2.5),
           name="promote_float"),
    OpCase("clamp.default", ("Bool",), [((2, 3),), ((),)], args=(0, 1), name="bool_int_bounds"),
    OpCase("clamp.default", FLOAT, [(Computed((3, 4), by="log"),)], args=(-1.5, 0.5),
           domain="small", name="nan"),
    OpCase("clamp.default", ("Float", "Double"), [((2, 3),), ((),)], args=(float("nan"), 1.0),
           name="nan_bound"),
    # Bool takes one bound only ("clamp_cpu" has no Bool; clamp_min and clamp_max do).
    OpCase("clamp.Tensor", REALH, [((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), ()),
                                 ((), (2, 1), (3,)), ((0, 3), (3,), (1, 3)),
                                 (In((3, 2), perm=(1, 0)), (2, 3), In((3, 2), perm=(1, 0)))],
           domain="small"),
    OpCase("clamp.Tensor", ALL, [((2, 3), (3,)), ((2, 3), Arg(None), (2, 1))],
           domain="small", name="one_bound"),
    OpCase("clamp.Tensor", ("Float",), [((2, 3), In((3,), "Int"), In((), "Double")),
                                        (In((2, 3), "Int"), In((2, 3), "Half"), Arg(None)),
                                        (In((2, 3), "Long"), Arg(None), In((), "Float"))],
           domain="small", name="mixed"),
    OpCase("clamp.Tensor", FLOAT, [(Computed((3, 4), by="log"), (4,), Computed((3, 4), by="log")),
                                   ((3, 4), Computed((3, 4), by="log"), Arg(None))],
           domain="small", name="nan"),
    OpCase("hardtanh.default", REALH, UNARY, args=(0, 6), name="relu6_bounds"),
    OpCase("hardtanh.default", FLOAT, UNARY, name="default"),
    OpCase("hardtanh.default", INT, [((2, 3),), ((),)], args=(-0.5, 2.5), domain="small",
           name="int_float_bounds"),
    OpCase("hardtanh.default", FLOAT + ("Int",), [((2, 3),)], args=(1, -1),
           name="min_above_max"),
    OpCase("hardtanh.default", FLOAT, [(Computed((3, 4), by="log"),)], domain="small",
           name="nan"),
    OpCase("relu6.default", REALH, UNARY),
    OpCase("hardsigmoid.default", FLOAT, UNARY),
    OpCase("hardswish.default", FLOAT, UNARY, name="dtypes"),
    OpCase("leaky_relu.default", FLOAT, UNARY),
    OpCase("leaky_relu.default", FLOAT, [((2, 3),), ((0,),)], args=(0.0,), name="slope0"),
    OpCase("leaky_relu.default", FLOAT, [((2, 3),)], args=(-0.5,), name="negative_slope"),
    OpCase("leaky_relu.default", FLOAT, [((2, 3),)], args=(3,), name="int_slope"),
    OpCase("leaky_relu.default", FLOAT, [(Computed((3, 4), by="log"),)], args=(0.2,),
           domain="small", name="nan"),
    OpCase("elu.default", FLOAT, UNARY),
    OpCase("elu.default", FLOAT, [((2, 3),)], args=(0.5,), name="alpha"),
    OpCase("elu.default", FLOAT, [((2, 3),), ((),)], args=(1.5, 2.0, 0.5), name="scales"),
    OpCase("elu.default", FLOAT, [(Computed((3, 4), by="log"),)], domain="small", name="nan"),
    OpCase("selu.default", FLOAT, UNARY),
    OpCase("silu.default", FLOAT, UNARY),
    OpCase("maximum.default", ALL, BINARY, domain="small", name="all"),
    OpCase("maximum.default", ("Float",), MIXED, domain="small", name="mixed"),
    OpCase("maximum.default", FLOAT, [(Computed((3, 4), by="log"), (3, 4)),
                                      ((4,), Computed((3, 4), by="log"))],
           domain="small", name="nan"),
    OpCase("minimum.default", ALL, BINARY, domain="small", name="all"),
    OpCase("minimum.default", ("Float",), MIXED, domain="small", name="mixed"),
    OpCase("minimum.default", FLOAT, [(Computed((3, 4), by="log"), (3, 4)),
                                      ((4,), Computed((3, 4), by="log"))],
           domain="small", name="nan"),
    # Trigonometry (rotary embeddings: sin and cos of a [positions, dims / 2] table) and
    # the floating functions the activations decompose to.
    *[OpCase(f"{op}.default", REALH + ("Bool",), UNARY) for op in ("sin", "cos", "expm1", "erf")],
    *[OpCase(f"{op}.default", ("Float", "Half"), [((16, 8),)], name="table")
      for op in ("sin", "cos")],
    *[OpCase(f"{op}.default", FLOAT, [(Computed((3, 4), by="log"),)], domain="small",
             name="nan") for op in ("sin", "cos", "expm1", "erf", "log1p")],
    OpCase("log1p.default", REALH + ("Bool",), UNARY, domain="positive"),
    OpCase("log1p.default", FLOAT, [((2, 3),), ((),)], name="any_domain"),
    # Activations that decompose to them: celu to expm1, softplus and mish to log1p.
    OpCase("celu.default", FLOAT, UNARY, args=(0.7,)),
    OpCase("softplus.default", FLOAT, UNARY),
    OpCase("softplus.default", ("Float", "Double"), [((2, 5),)], args=(2.0, 1.0), name="beta"),
    OpCase("mish.default", FLOAT, UNARY),

    # --- elementwise ops of ExecuTorch's portable set (issue 29) ---
    # Each op in Float (its other dtypes as inputs of the same program: integer and Bool
    # inputs give Float, Half and Double their own dtype) and BFloat16 (compared at its
    # own tolerance); "specials" inputs, and every pair of them for binary ops.
    *[OpCase(f"{op}.default", ("Float", "BFloat16"),
             UNARY + [((7, 65),), (In((24,), domain="specials"),)]
             + each_dtype(("Double", "Half") + INT + ("Bool",)), domain=domain)
      for op, domain in (("acos", "any"), ("asin", "any"), ("atan", "any"),
                         ("acosh", "positive"), ("asinh", "any"), ("atanh", "any"),
                         ("cosh", "any"), ("sinh", "any"), ("tan", "any"),
                         ("log2", "positive"), ("log10", "positive"),
                         ("reciprocal", "nonzero"))],
    # Rounding: halves to even; integers (their ends too) unchanged; torch has no Bool.
    *[OpCase(f"{op}.default", ("Float", "BFloat16"),
             UNARY + [(In((4, 6), domain="specials"),)]
             + each_dtype(("Double", "Half") + INT, domains=("specials",)))
      for op in ("ceil", "floor", "round", "trunc")],
    OpCase("round.decimals", ("Float", "BFloat16"),
           [((2, 3),), ((),), ((0, 2),), (In((4, 6), domain="specials"),)]
           + each_dtype(("Double", "Half")), kwargs={"decimals": 2}),
    OpCase("round.decimals", ("Float", "Double"), [((2, 3),), (In((4, 6), domain="specials"),)],
           kwargs={"decimals": -1}, name="negative"),
    OpCase("sign.default", ("Float", "BFloat16"),
           UNARY + [(In((4, 6), domain="specials"),)]
           + each_dtype(("Double", "Half", "Bool") + INT, domains=("specials",))),
    *[OpCase(f"{op}.default", ("Float",),
             UNARY + [(In((4, 6), domain="specials"),)]
             + each_dtype(("Double", "Half", "BFloat16", "Bool") + INT, domains=("specials",)))
      for op in ("isnan", "isinf")],
    OpCase("atan2.default", ("Float", "BFloat16"),
           BINARY + [SPECIAL_PAIRS] + MIXED
           + each_dtype(("Double", "Half", "Bool") + INT, shapes=((2, 3), (3,)),
                        domains=(None, None))),
    # fmod and remainder: integers exact (the lowest value % -1 is 0), floats by fmod (a
    # zero divisor gives NaN); an integer zero divisor fails the call
    # (test_integer_division_by_zero_fails_the_call).
    *[OpCase(f"{op}.Tensor", ("Float", "BFloat16"),
             BINARY + [SPECIAL_PAIRS, ((2, 3), In((3,), "Int")),
                       (In((2, 3), "Int"), In((3,), "Char")),
                       (In((2,), "Half"), In((2,), "Double"))]
             + each_dtype(("Double", "Half") + INT, INT_PAIRS, INT_PAIR_DOMAINS),
             domain="nonzero")
      for op in ("fmod", "remainder")],
    *[OpCase(f"{op}.Tensor", ("Int", "Long"), [((4,), (4,))], domain="nonzero", name="by_zero")
      for op in ("fmod", "remainder")],
    *[case for op in ("fmod", "remainder") for case in (
        OpCase(f"{op}.Scalar", ("Float", "BFloat16"),
               UNARY + [(In((4, 6), domain="specials"),)]
               + each_dtype(("Double", "Half", "Bool") + INT, domains=("specials",)), args=(3,)),
        OpCase(f"{op}.Scalar", ("Float",), [((2, 3),), (In((4, 6), domain="specials"),)]
               + each_dtype(("Bool",) + INT), args=(-1.5,), name="float"),
        OpCase(f"{op}.Scalar", ("Long",), each_dtype(INT, domains=("specials",)), args=(-1,),
               name="minus_one"))],
    # Bitwise or / xor: every pair of integer specials per dtype; a Bool tensor with an
    # integer Scalar gives Long, with a Bool one Bool.
    *[case for op in ("bitwise_or", "bitwise_xor") for case in (
        OpCase(f"{op}.Tensor", ("Int",),
               BINARY + [((2, 3), In((3,), "Char")), ((2, 3), In((3,), "Bool")),
                         (In((2, 3), "Byte"), In((3,), "Char"))]
               + each_dtype(("Bool",) + INT, INT_PAIRS, ("specials", "specials"))),
        OpCase(f"{op}.Scalar", ("Int",), each_dtype(("Bool",) + INT, domains=("specials",)),
               args=(5,)),
        OpCase(f"{op}.Scalar", ("Bool",), [((2, 3),), ((),)], args=(True,), name="bool"))],
    # Shifts (`<<` and `>>` export as __lshift__ / __rshift__): every integer special by
    # every count around each bit width, negative counts too.
    *[OpCase(f"{op}.Tensor", ("Int",),
             BINARY + [((2, 3), In((3,), "Char")), (In((2, 3), "Byte"), In((3,), "Short"))]
             + each_dtype(INT, ((12, 1), (13,)), ("specials", "shifts")), domain="small")
      for op in ("bitwise_left_shift", "bitwise_right_shift", "__lshift__", "__rshift__")],
    # A Bool tensor shifts in Long by bitwise_*_shift; torch.export refuses it for `<<`.
    *[OpCase(f"{op}.Tensor_Scalar", ("Int",),
             each_dtype(("Bool",) + INT, domains=("specials",)), args=(3,))
      for op in ("bitwise_left_shift", "bitwise_right_shift")],
    *[OpCase(f"{op}.Scalar", ("Int",), each_dtype(INT, domains=("specials",)), args=(3,))
      for op in ("__lshift__", "__rshift__")],
    OpCase("__lshift__.Scalar", ("Int",), each_dtype(INT, domains=("specials",)), args=(64,),
           name="past_width"),
    OpCase("__rshift__.Scalar", ("Int",), each_dtype(INT, domains=("specials",)), args=(-1,),
           name="negative"),
    OpCase("logical_xor.default", ("Float",),
           BINARY + MIXED + each_dtype(("Double", "Half", "BFloat16", "Bool") + INT,
                                       shapes=((2, 3), (3,)), domains=(None, None)),
           domain="small"),
    # floor_divide, logit and glu stay whole (their kernels; exporter/decompositions.py;
    # logit and glu have more cases in the shape section below); rsub becomes sub.
    OpCase("floor_divide.default", REALH, BINARY, domain="nonzero"),
    OpCase("floor_divide.default", ("Float",), MIXED[:-1], domain="nonzero", name="mixed"),
    OpCase("floor_divide.default", ("Int",), each_dtype(INT, shapes=INT_PAIRS,
                                                        domains=INT_PAIR_DOMAINS),
           name="specials"),
    OpCase("floor_divide.default", ("Float",),
           [SPECIAL_PAIRS] + each_dtype(("Double", "Half", "BFloat16"), shapes=((24, 1), (24,)),
                                        domains=("specials", "specials")),
           name="float_specials"),
    OpCase("floor_divide.Scalar", REALH, [((2, 3),), ((),), ((0, 4),), (In((3, 2), perm=(1, 0)),)],
           args=(3,)),
    OpCase("floor_divide.Scalar", ("Char", "Int", "Long", "Float", "Half"), [((2, 3),)],
           args=(-3,), name="negative"),
    OpCase("floor_divide.Scalar", REALH, [((2, 3),)], args=(2.5,), name="float"),
    OpCase("logit.default", ("Float",), [((2, 3),), (In((4, 6), domain="specials"),)],
           domain="positive"),
    OpCase("logit.default", ("Float",), [((2, 3),), (In((4, 6), domain="specials"),)],
           args=(1e-3,), name="eps"),
    OpCase("glu.default", ("Float",), [((4, 6),), ((2, 4, 3),)], args=(1,)),
    OpCase("rsub.Scalar", ("Float", "Int"), [((2, 3),), ((),)], args=(2,)),
    OpCase("rsub.Tensor", ("Float",), BINARY, kwargs={"alpha": 2}),
    # Logical reductions: zeros are common in the "small" domain, and size-1 reduced dims
    # give false results too; x.all() runs as not(any(not(x))).
    OpCase("any.default", ALL, [((2, 3),), ((),), ((0, 4),), ((1,),),
                                (In((3, 2), perm=(1, 0)),)], domain="small"),
    OpCase("any.dim", ALL, [((3, 4, 2),), ((5, 1),), ((0, 3),), ((3, 0),)], args=(1,),
           domain="small"),
    OpCase("any.dim", ("Bool", "Byte", "Float"), [((3, 4, 2),), (In((2, 5), perm=(1, 0)),)],
           args=(-1, True), domain="small", name="keepdim"),
    OpCase("any.dim", ("Float", "Int"), [((),)], args=(0,), domain="small", name="scalar"),
    OpCase("any.dims", ALL, [((3, 4, 2),), ((2, 0, 3),)], args=([0, 2],), domain="small"),
    OpCase("any.dims", ("Bool", "Byte", "Half"), [((3, 4, 2),)], args=([-1, 1], True),
           domain="small", name="keepdim"),
    OpCase("any.dims", ("Bool", "Float"), [((3, 4),), ((),)], args=([],), domain="small",
           name="no_dims"),
    OpCase("any.dims", ("Bool", "Long"), [((3, 4),), ((),)], args=(None, True), domain="small",
           name="every_dim"),
    OpCase("any.default", FLOAT, [(Computed((3, 4), by="log"),)], domain="small", name="nan"),
    OpCase("any.dim", ("Float",), [(Computed((5, 1), by="log"),)], args=(1,), domain="small",
           name="nan"),
    OpCase("all.default", ALL, [((2, 3),), ((),), ((0, 4),)], domain="small"),
    OpCase("all.dim", ALL, [((3, 4, 2),), ((3, 0),)], args=(1, True), domain="small"),
    OpCase("all.dims", ("Bool", "Byte", "Float", "Int"), [((3, 4, 2),)], args=([0, -1],),
           domain="small"),
    OpCase("argmin.default", REALH, [((3, 6),), ((5, 1),)], args=(1,), domain="small"),
    OpCase("argmin.default", ("Float", "Int", "Half"), [((3, 6),), ((),)], args=(None, True),
           domain="small", name="flat"),
    OpCase("argmin.default", ("Float", "Long"), [((2, 3, 4),), (In((4, 3), perm=(1, 0)),)],
           args=(-2,), domain="small", name="negative_dim"),
    OpCase("argmin.default", FLOAT, [(Computed((4, 5), by="log"),)], args=(1,), domain="small",
           name="nan"),
    # Scans: integer and Bool inputs sum into Long (torch.cumsum(mask, -1)).
    OpCase("cumsum.default", ALL, [((3, 4),), ((5,),), ((),), ((0, 3),),
                                   (In((4, 3), perm=(1, 0)),)], args=(-1,), domain="small"),
    OpCase("cumsum.default", ALL, [((3, 4, 2),)], args=(0,), domain="small", name="dim0"),
    OpCase("cumsum.default", ("Float", "Long", "Bool"), [((3, 4, 2),), ((2, 0, 3),)],
           args=(1,), domain="small", name="dim1"),
    OpCase("cumsum.default", ("Float", "Double"), [((2, 300),)], args=(1,), name="long"),
    OpCase("cumsum.default", ("Float", "Half", "Bool"), [((3, 4),)], args=(-1,),
           kwargs={"dtype": Dtype("Double")}, domain="small", name="to_double"),
    OpCase("cumsum.default", ("Float", "Double"), [((3, 4),)], args=(0,),
           kwargs={"dtype": Dtype("Int")}, name="to_int"),
    OpCase("cumsum.default", ("Int", "Bool", "Byte"), [((3, 4),)], args=(1,),
           kwargs={"dtype": Dtype("Half")}, domain="small", name="to_half"),
    # Sums past 127 wrap in Char, as torch's do.
    OpCase("cumsum.default", ("Char",), [((2, 60),)], args=(1,), kwargs={"dtype": DTYPE},
           domain="positive", name="wrap"),
    OpCase("cumsum.default", FLOAT, [(Computed((3, 4), by="log"),)], args=(1,), domain="small",
           name="nan"),
    # Copies: alias exports as alias_copy; flip reverses along each listed dim.
    OpCase("alias.default", ALL, UNARY),
    OpCase("flip.default", ALL, [((2, 3, 4),), ((2, 0, 3),)], args=([0, 2],)),
    OpCase("flip.default", ("Float", "Half", "Int", "Bool"),
           [((5,),), ((3, 4),), (In((3, 2), perm=(1, 0)),)], args=([-1],), name="last"),
    OpCase("flip.default", ("Float", "Long"), [((2, 3, 4),)], args=([2, 0, 1],), name="every_dim"),
    OpCase("flip.default", ("Float", "Char"), [((2, 3, 4),), ((2, 1, 3),)], args=([1],),
           name="middle"),
    OpCase("flip.default", ("Float",), [((2, 3),), ((),)], args=([],), name="no_dims"),
    OpCase("flip.default", ("Float", "Double"), [((),)], args=([0],), name="scalar"),
]
