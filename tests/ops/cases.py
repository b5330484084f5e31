"""The op test cases: one declarative list, run by tests/ops/test_ops.py against every
kernel library and XNNPACK (see harness.py for how a case becomes a program, a build and
a check).

A case names the ATen overload it calls (`"add.Tensor"` calls torch.ops.aten.add.Tensor),
the dtypes to run it in (one program per dtype), and the calls: each item of `shapes` is
one call of the op on fresh inputs. An input is a shape tuple (a tensor of the case's
dtype), an `In` (its own dtype, a permute before the op, a value domain), a `Tensors`
(a `Tensor[]`, or with None entries a `Tensor?[]`), a `Given` (an input with fixed values,
such as positions), None (an absent `Tensor?`), an `Arg` (a non-tensor argument in
that place, for ops whose tensors do not come first), a `Constant` (a tensor the module
holds, stored in the program like a model's weights) or a `Computed` (the output of
another op on a fresh input, so the op does not sit alone in the program; `then` runs
one after it). The remaining
non-tensor arguments follow (`args`, `kwargs`); `DTYPE` in them stands for the case's
dtype as a torch.dtype, `Dtype("Long")` for a fixed one. An op returning several
tensors or a list of them (native_layer_norm, split_copy) has its outputs compared one
by one, flattened.

Add cases by appending to CASES (or to your section of it); adding a kernel means adding
its cases: tests/ops/test_ops.py fails for a manifest op no case exercises, and for an op
the XNNPACK partitioner claims that no case runs on XNNPACK.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Dtype:
    """A dtype argument of the op: a fixed one by name, or (None) the case's dtype."""
    name: str | None = None


DTYPE = Dtype()


@dataclass(frozen=True)
class In:
    """One tensor input of a call."""
    shape: tuple
    dtype: str | None = None       # None: the case's dtype
    perm: tuple | None = None      # permuted in the module before the op: the op sees a
                                   # permute_copy output (the exporter keeps tensors contiguous)
    domain: str | None = None      # None: the case's domain (see OpCase.domain)


@dataclass(frozen=True)
class Constant(In):
    """A tensor the module holds (a buffer): the program stores it as a constant, as it
    does a model's weights (XNNPACK's linear takes only constant weights)."""


@dataclass(frozen=True)
class Given(In):
    """A tensor input with these values (row-major), not random ones: positions into a
    cache, say."""
    values: tuple = ()


@dataclass(frozen=True)
class Computed(In):
    """A tensor the module computes with `by` (an aten op on one tensor, then `args`)
    from a fresh input just before the call: XNNPACK delegates a copy or reshape only
    beside compute, and an elementwise op on pooled tensors channels-last."""
    by: str = "relu"
    args: tuple = ()


@dataclass(frozen=True)
class Tensors:
    """A list-of-tensors input of a call: shape tuples, `In`s and (for `Tensor?[]`) None."""
    items: tuple


@dataclass(frozen=True)
class Arg:
    """A non-tensor argument at this place among a call's inputs."""
    value: object


@dataclass(frozen=True, eq=False)
class OpCase:
    op: str                                    # "add.Tensor": torch.ops.aten.add.Tensor
    dtypes: tuple                              # "Float", "Int", ...: one program each
    shapes: list                               # one call per item: a tuple of inputs
    args: tuple = ()                           # non-tensor arguments after the tensors
    kwargs: dict = field(default_factory=dict)
    name: str = ""                             # tells apart cases of one op: "alpha"
    domain: str = "any"                        # input values: any, positive, nonzero,
                                               # small, edges (floats that do not fit an
                                               # integer), huge (integers anywhere in range),
                                               # specials (NaN, +-inf, -0.0, halves, integer
                                               # ends; specials_nonzero without 0), shifts
                                               # (counts around each bit width)
    atol: float | None = None                  # None: the harness default per dtype
    rtol: float | None = None
    then: tuple = ()                           # (op, *args): an aten op on each result,
                                               # e.g. a convolution's activation
    check: str = "eager"                       # how outputs are compared: "eager" (with
                                               # torch's); drawn ones (harness.check_drawn):
                                               # "uniform", "normal" (range and moments),
                                               # "dropout" (mask fraction, exact scaling),
                                               # "shape" (empty: shape and dtype only)
    outputs: tuple | None = None               # which results of each call are compared
                                               # (None: all): topk's values alone where
                                               # ties leave torch's indices open
    threads: int = field(default=1, repr=False)  # runner --threads: kernels that split
                                               # their work, checked split (not in the
                                               # repr, which keys the export cache: the
                                               # programs are the same)

    @property
    def id(self) -> str:
        return self.op + (f"-{self.name}" if self.name else "")


# Dtype groups, as torch supports the ops on the CPU.
INT = ("Byte", "Char", "Short", "Int", "Long")
FLOAT = ("Float", "Double", "Half", "BFloat16")
REAL = INT + ("Float", "Double")
REALH = INT + FLOAT
ALL = ("Bool",) + REALH

# Binary ops: same shape, broadcasting both ways, 0-d on either side, empty, and a
# non-contiguous input (a permute precedes the op).
BINARY = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 2)), ((2, 3), ()),
          ((0, 3), (3,)), (In((3, 2), perm=(1, 0)), (2, 3))]
# Mixed dtypes, promoted as torch does (the case dtype is the first input's).
MIXED = [((2, 3), In((3,), "Int")), (In((2, 3), "Byte"), In((3,), "Char")),
         (In((2, 3), "Half"), In((2, 3), "BFloat16")), ((2, 3), In((), "Double")),
         (In((2, 3), "Int"), In((), "Float")), (In((2, 3), "Long"), In((2, 3), "Bool"))]

UNARY = [((2, 3),), ((),), ((0, 4),), (In((3, 2), perm=(1, 0)),)]

# What the XNNPACK partitioner claims: 1 to 6 dims, broadcasting both ways, a permuted
# input (the permute itself stays on the kernels).
XNNPACK_BINARY = [((2, 3), (2, 3)), ((2, 3, 4), (3, 1)), ((4, 1), (1, 5)), ((3, 4), (4,)),
                  ((2, 1, 3, 1, 2, 2), (3, 1, 2, 1)), (In((3, 2), perm=(1, 0)), (2, 3))]
XNNPACK_UNARY = [((2, 3),), ((7,),), ((2, 1, 3, 1, 2, 2),), (In((3, 2), perm=(1, 0)),)]


# (M, N, K) of matrix products: each of 1, 7, 65, 129, 257 twice in each place, and a
# depth of 600 (three 256-deep blocks) with 13 rows (unpacked with 8-row tiles, packed
# with 6-row ones).
GEMM_ODD = [(1, 7, 65), (7, 65, 129), (65, 129, 257), (129, 257, 1), (257, 1, 7),
            (1, 257, 129), (7, 1, 257), (65, 7, 1), (129, 65, 7), (257, 129, 65),
            (13, 33, 600)]


# Rows of 1, 7, 65 and 129 elements (each width's ragged end), a permuted input last.
ODD_ROWS = [((1,),), ((7,),), ((3, 65),), ((2, 129),), (In((129, 2), perm=(1, 0)),)]

# Binary broadcasts at odd lengths: same shape, a row on either side, a single element on
# either side, a permuted input, and one broadcast that is none of those.
ODD_BINARY = [((129,), (129,)), ((7, 65), (65,)), ((65,), (7, 65)), ((1,), (3, 129)),
              ((2, 7, 129), ()), ((1, 7, 65), (7, 65)), ((3, 65, 1), (65, 7)),
              (In((65, 7), perm=(1, 0)), (7, 65))]


def others(*tested: str) -> tuple:
    """ALL but `tested`: the remaining dtypes of an op whose main case runs a few."""
    return tuple(d for d in ALL if d not in tested)

COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")


def each_dtype(dtypes, shapes=((2, 3),), domains=(None,)) -> list:
    """One call per dtype, on inputs of that dtype (`shapes`, `domains`: one per input): a
    program holds calls of several dtypes, each output compared in its own dtype (the
    tolerance of the case dtype or the output's, whichever is looser)."""
    return [tuple(In(shape, d, domain=domain) for shape, domain in zip(shapes, domains))
            for d in dtypes]


# Every pair of "specials" values: x of [24, 1] against y of [24].
SPECIAL_PAIRS = (In((24, 1), domain="specials"), In((24,), domain="specials"))
# Integer ends against every nonzero special (the lowest value % -1 among them).
INT_PAIRS = ((12, 1), (12,))
INT_PAIR_DOMAINS = ("specials", "specials_nonzero")


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
    # last dims: attention's [T, T] mask with a 0-dim -inf) at odd lengths, so ragged
    # ends run, and broadcasts that fall back to the elementwise loop (a condition
    # broadcast along a middle dim; Row operands of different lengths).
    OpCase("where.self", ("Float",), [
        *[(In((n, n), "Bool"), (), (1, 4, n, n)) for n in (1, 7, 65, 129)],
        (In((129,), "Bool"), (129,), (129,)), (In((65, 7), "Bool"), (65, 7), (65, 7)),
        (In((), "Bool"), (7, 65), (7, 65)), (In((3, 129), "Bool"), (129,), ()),
        (In((1, 65), "Bool"), (2, 3, 65), (1, 1, 65)),
        (In((7, 1), "Bool"), (65,), (7, 65)), (In((65,), "Bool"), (7, 65), (3, 7, 65))],
           name="broadcast"),
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
    # The optimized square and sigmoid (RMS norm's x.pow(2), SiLU): whole vectors, then
    # the ragged end; another exponent by powf; sigmoid of NaN (the log of negative values).
    OpCase("pow.Tensor_Scalar", ("Float",), [((1,),), ((7,),), ((65,),), ((129, 3),)],
           args=(2,), name="odd_sizes"),
    OpCase("pow.Tensor_Scalar", ("Float",), [((7, 5),)], args=(3,), domain="small",
           name="cube"),
    OpCase("sigmoid.default", ("Float",),
           [((1,),), ((7,),), ((65,),), ((129, 3),), (Computed((5, 13), by="log"),)],
           name="odd_sizes"),
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


    # --- shapes, reductions, nn ---
    # Layout ops move bytes: one dtype per element size, plus Float.
    OpCase("permute_copy.default", ("Half", "Int", "Double"), [((2, 3, 4),), ((0, 2, 1),)],
           args=([2, 0, 1],), name="sizes"),
    OpCase("permute_copy.default", ("Float",), [(In((4, 3, 2), perm=(2, 0, 1)),)],
           args=([0, 2, 1],), name="permuted"),
    OpCase("view_copy.default", ("Float", "Bool"), [((2, 3, 4),), ((0, 4),)], args=([-1, 4],),
           name="infer"),
    OpCase("view_copy.default", ("Half",), [((6,),)], args=([2, 1, 3],), name="rank_up"),
    OpCase("expand_copy.default", ("Float", "Char", "Half", "Long"), [((3, 1, 1),)],
           args=([2, 3, -1, 4],)),
    OpCase("expand_copy.default", ("Float",), [((),)], args=([2, 3],), name="scalar"),
    OpCase("expand_copy.default", ("Float",), [((2, 1),)], args=([2, 0],), name="empty"),
    OpCase("unsqueeze_copy.default", ("Float", "Long", "Bool"), [((2, 3),), ((),)], args=(-1,)),
    OpCase("unsqueeze_copy.default", ("Float",), [((2, 3),)], args=(1,), name="middle"),
    OpCase("squeeze_copy.dims", ("Float", "Short"), [((1, 3, 1, 2),), ((1, 1, 1, 1),)],
           args=([0, 1, -2],)),
    OpCase("squeeze.default", ("Float",), [((1, 3, 1, 2),), ((),)], name="all"),
    OpCase("slice_copy.Tensor", ("Float", "Long", "Bool", "Half"), [((3, 8),), ((2, 6, 2),)],
           args=(1, 1, 6, 2)),
    OpCase("slice_copy.Tensor", ("Float",), [((5, 2),)], args=(0, -3, None), name="negative"),
    OpCase("slice_copy.Tensor", ("Float",), [((2, 7),)], args=(-1, -100, 100, 3), name="clamped"),
    OpCase("slice_copy.Tensor", ("Float",), [((5, 2),)], args=(0, 4, 2), name="empty"),
    OpCase("select_copy.int", ("Float", "Int", "Bool"), [((3, 4, 2),), ((2, 5),)], args=(1, -1)),
    OpCase("select_copy.int", ("Float",), [((4,),)], args=(0, 2), name="to_scalar"),
    OpCase("embedding.default", ("Float", "Half", "Long", "Char"),
           [((10, 4), In((2, 3), "Long", domain="positive")),
            ((10, 4), In((5,), "Int", domain="positive")),
            ((10, 4), In((), "Long", domain="positive"))]),

    # Matrix products. util/matmul.h packs b in blocks of 256 rows of depth and computes
    # 4-row tiles: "wide" and "deep" cross the tile and block edges with ragged shapes.
    OpCase("mm.default", REALH, [((2, 4), (4, 3)), ((0, 3), (3, 2)), ((3, 0), (0, 2)),
                                 (In((4, 2), perm=(1, 0)), (4, 3))], domain="small"),
    OpCase("mm.default", ("Float",), [((5, 70), (70, 200))], name="wide"),
    OpCase("mm.default", ("Float", "Double", "Int"), [((67, 300), (300, 45))], domain="small",
           name="deep"),
    OpCase("mm.default", ("Half",), [((3, 1100), (1100, 5))], domain="small", name="deep_half"),
    OpCase("addmm.default", ("Float",), [((45,), (9, 600), (600, 45))],
           kwargs={"beta": 0.5, "alpha": 2.0}, domain="small", name="deep"),
    OpCase("bmm.default", REALH, [((2, 3, 4), (2, 4, 5)), ((0, 2, 3), (0, 3, 1))],
           domain="small"),
    OpCase("addmm.default", ("Float",), [((200,), (3, 9), (9, 200)), ((3, 1), (3, 9), (9, 200)),
                                         ((), (3, 9), (9, 2))], name="wide"),
    OpCase("addmm.default", ("Float",), [((2, 3), (2, 4), (4, 3))], kwargs={"beta": 0},
           name="beta0"),
    # The optimized GEMM (kernels/optimized/util/gemm.h; tiles up to 8 rows by 32 columns,
    # b read unpacked below 2 tile heights of rows, 256-deep blocks): each of 1, 7, 65, 129,
    # 257 in each of M, N and K (GEMM_ODD), depths of 2 and 3 blocks, permuted inputs and
    # every bias broadcast. Integer-valued inputs make every sum exact in any order.
    OpCase("mm.default", ("Float",), [((m, k), (k, n)) for m, n, k in GEMM_ODD]
           + [(In((129, 7), perm=(1, 0)), In((65, 129), perm=(1, 0)))],
           domain="small", name="odd_sizes"),
    OpCase("bmm.default", ("Float",), [((2, 7, 65), (2, 65, 129)), ((3, 65, 257), (3, 257, 1)),
                                       ((1, 129, 7), (1, 7, 65)), ((2, 1, 600), (2, 600, 33)),
                                       ((2, 257, 13), (2, 13, 7)),
                                       (In((2, 65, 7), perm=(0, 2, 1)),
                                        In((2, 33, 65), perm=(0, 2, 1)))],
           domain="small", name="odd_sizes"),
    OpCase("addmm.default", ("Float",), [((65,), (7, 129), (129, 65)), ((257, 1), (257, 7), (7, 1)),
                                         ((129, 65), (129, 257), (257, 65)),
                                         ((), (13, 600), (600, 33)), ((1, 7), (65, 1), (1, 7)),
                                         ((33,), In((600, 17), perm=(1, 0)), (600, 33))],
           kwargs={"beta": 0.5, "alpha": -1.5}, domain="small", name="odd_sizes"),
    OpCase("addmm.default", ("Float",), [((65,), (7, 257), (257, 65)), ((1, 129), (129, 1), (1, 129))],
           kwargs={"beta": 0}, domain="small", name="odd_sizes_beta0"),
    OpCase("linear.default", ("Float",), [((7, 129), Constant((65, 129)), Constant((65,))),
                                          ((2, 13, 257), Constant((129, 257))),
                                          ((1, 600), Constant((7, 600)), Constant((7,)))],
           domain="small", name="odd_sizes"),
    # Weights packed once at load (kernels/optimized/util/gemm_prepack.h): a constant mat2
    # read as whole strips for every row count (1, under and over 16 tile heights), two
    # depth blocks, two column blocks (over 1024) and a ragged last strip.
    OpCase("linear.default", ("Float",), [((150, 300), Constant((1100, 300)), Constant((1100,))),
                                          ((1, 257), Constant((65, 257))),
                                          ((9, 2, 600), Constant((33, 600)), Constant((33,)))],
           domain="small", name="prepacked"),
    OpCase("mm.default", ("Float",), [((70, 300), Constant((300, 45))), ((1, 7), Constant((7, 1)))],
           domain="small", name="prepacked"),
    # The optimized vector kernels (kernels/optimized/util/vec.h: 16, 8 or 4 lanes a
    # step): rows of 1, 7, 65 and 129 floats, a ragged end at every width, and permuted
    # inputs; softmax along an inner dim too (portable's strided rows).
    OpCase("_softmax.default", ("Float",), ODD_ROWS + [((2, 3, 129),)], args=(-1, False),
           name="odd_sizes"),
    OpCase("_softmax.default", ("Float",), [((3, 65, 7),), ((2, 7, 1),)], args=(1, False),
           name="odd_sizes_dim1"),
    OpCase("gelu.default", ("Float",), ODD_ROWS, name="odd_sizes"),
    OpCase("gelu.default", ("Float",), ODD_ROWS, kwargs={"approximate": "tanh"},
           name="odd_sizes_tanh"),
    OpCase("native_layer_norm.default", ("Float",),
           [((1,), Arg([1]), (1,), (1,), Arg(1e-5)),
            ((3, 7), Arg([7]), (7,), (7,), Arg(1e-5)),
            ((2, 65), Arg([65]), Arg(None), (65,), Arg(1e-5)),
            ((2, 3, 129), Arg([129]), (129,), Arg(None), Arg(1e-5)),
            (In((129, 2), perm=(1, 0)), Arg([129]), (129,), (129,), Arg(1e-5)),
            ((4, 5, 13), Arg([5, 13]), (5, 13), (5, 13), Arg(1e-3))], name="odd_sizes"),
    # Float arithmetic (kernels/optimized/util/binary.h): each fast path (same shape, a
    # single element on either side, a row of the out's last dims on either side) at odd
    # lengths, and a broadcast none of them covers.
    *[OpCase(f"{op}.Tensor", ("Float",), ODD_BINARY, kwargs=kwargs, name="odd_sizes",
             domain="nonzero" if op == "div" else "any")
      for op, kwargs in (("add", {"alpha": 0.5}), ("sub", {"alpha": 2}), ("mul", {}),
                         ("div", {}))],
    OpCase("mul.Scalar", ("Float",), [((1,),), ((7,),), ((3, 65),), ((129,),)], args=(0.5,),
           name="odd_sizes"),

    # Reductions and normalization.
    OpCase("layer_norm.default", FLOAT, [((2, 3, 5),), ((4, 5),), ((0, 5),)], args=([5],)),
    OpCase("layer_norm.default", ("Float", "Double"), [((2, 3, 4),)],
           args=([3, 4], None, None, 1e-3),
           name="two_dims"),
    # linalg_vector_norm: ord, dim, keepdim. x.norm(p=2, dim=(1, 2), keepdim=True) is
    # ConvNeXt-V2's GRN; every order torch.export emits for x.norm(p=...): 2, 1, inf,
    # -inf, 0 (a count), any other p (negative too). Small integers give zeros to count.
    OpCase("linalg_vector_norm.default", FLOAT,
           [((2, 3, 4),), ((2, 0, 3),), ((1, 5, 7, 9),)], args=(2, [1, 2], True),
           name="grn"),
    OpCase("linalg_vector_norm.default", FLOAT, [((3, 4, 5),), ((),)], args=(2,),
           name="all"),
    *[OpCase("linalg_vector_norm.default", ("Float", "Double"),
             [((3, 7),), ((2, 3, 65),), (In((5, 3), perm=(1, 0)),)], args=(order, [-1]),
             domain="small", name=name)
      for name, order in [("ord1", 1), ("inf", float("inf")), ("neg_inf", float("-inf")),
                          ("ord0", 0), ("ord3", 3.0), ("ord_half", 0.5)]],
    OpCase("linalg_vector_norm.default", ("Float", "Double"), [((3, 7),), ((4, 5),)],
           args=(-1.5, [1]), domain="nonzero", name="negative_ord"),
    OpCase("linalg_vector_norm.default", ("Float",), [((3, 4),)], args=(2, [0]),
           kwargs={"dtype": Dtype("Double")}, name="dtype"),
    # Infinities and NaN: a NaN makes every norm NaN, an infinity every norm but -inf's.
    *[OpCase("linalg_vector_norm.default", ("Float",), [((4, 6),)], args=(order, [1]),
             domain="edges", name=f"edges_{name}")
      for name, order in [("2", 2), ("inf", float("inf")), ("neg_inf", float("-inf")),
                          ("0", 0), ("1", 1)]],
    OpCase("linalg_vector_norm.default", ("Float",), [((0, 4),), ((3, 0),)], args=(1, [0]),
           name="empty"),
    OpCase("mean.dim", FLOAT, [((3, 4, 5),), ((2, 0, 3),)], args=([0, 2], True)),
    OpCase("mean.dim", ("Float",), [((3, 4),)], args=([-1],), kwargs={"dtype": Dtype("Double")},
           name="dtype"),
    OpCase("mean.dim", ("Float",), [((3, 4),), ((),)], args=(None,), name="all"),
    OpCase("mean.default", FLOAT, [((3, 4),), ((),), ((0,),)]),
    OpCase("sum.dim_IntList", ALL, [((3, 4, 5),), ((0, 3),)], args=([1],), domain="small"),
    OpCase("sum.dim_IntList", ("Float", "Int", "Bool"), [((3, 4),), ((),)], args=([], True),
           name="all_keepdim", domain="small"),
    OpCase("sum.dim_IntList", ("Int",), [((3, 4),)], args=([0],),
           kwargs={"dtype": Dtype("Float")}, name="dtype", domain="small"),
    OpCase("amax.default", ALL, [((3, 4, 5),), ((4,),)], args=([-1],)),
    # Integer overflow wraps around in two's complement, as in torch (util/wrap.h).
    OpCase("sum.dim_IntList", INT, [((3, 40),)], args=([1],), kwargs={"dtype": DTYPE},
           domain="huge", name="wraps"),
    OpCase("sum.dim_IntList", ("Long",), [((3, 40),)], args=([1],), domain="huge",
           name="wraps_long"),
    OpCase("cumsum.default", INT, [((3, 40),)], args=(1,), kwargs={"dtype": DTYPE},
           domain="huge", name="wraps"),
    OpCase("mm.default", INT, [((5, 40), (40, 7)), ((9, 300), (300, 33))], domain="huge",
           name="wraps"),
    OpCase("bmm.default", INT, [((2, 5, 40), (2, 40, 7))], domain="huge", name="wraps"),
    OpCase("addmm.default", INT, [((7,), (5, 40), (40, 7))], kwargs={"beta": 3, "alpha": 5},
           domain="huge", name="wraps"),
    *[OpCase(f"{op}.Tensor", INT, [((3, 40), (3, 40)), ((3, 40), (40,))], domain="huge",
             name="wraps") for op in ("add", "sub", "mul")],
    OpCase("amax.default", ("Float", "Long"), [((3, 4, 5),), ((),)], args=([], True), name="all"),
    OpCase("argmax.default", REALH, [((3, 6),), ((5, 1),)], args=(1,), domain="small"),
    OpCase("argmax.default", ("Float", "Int"), [((3, 6),), ((),)], args=(None, True),
           name="flat", domain="small"),

    # --- tensor lists, arguments between tensors, several outputs ---
    # Layout ops: one dtype per element size, plus Bool.
    OpCase("cat.default", ("Float", "Bool", "Half", "Long"),
           [(Tensors(((2, 3), (4, 3), (1, 3))),), (Tensors(((2, 3), (2, 1), (2, 0))), Arg(-1)),
            (Tensors(((2, 3), (0,), (2, 2))), Arg(1)), (Tensors(((0, 3), (0, 3))),),
            (Tensors(((3,),)),), (Tensors((In((3, 2), perm=(1, 0)), (2, 4))), Arg(1))]),
    # Index values in [-3, 3]: in range for every indexed dim (size >= 4), negatives too.
    OpCase("index.Tensor", ("Float", "Bool", "Half", "Long"),
           [((5, 6), Tensors((In((3,), "Long"),))),
            ((5, 6), Tensors((None, In((2, 2), "Int")))),
            ((5, 6, 7), Tensors((In((2, 1), "Long"), In((3,), "Long")))),
            ((5, 6), Tensors((In((), "Long"),))),
            ((5, 6, 7), Tensors((None, In((2,), "Int"), In((2,), "Long")))),
            ((5, 6, 7), Tensors((In((2,), "Long"), None, In((1,), "Int")))),
            ((5, 6), Tensors((In((0,), "Long"),)))], domain="small"),
    # The KV-cache write: values broadcast to the indexed shape; None keeps a dim.
    OpCase("index_put.default", ("Float", "Bool", "Half", "Long"),
           [((5, 6), Tensors((In((3,), "Long"),)), (3, 6)),
            ((2, 5, 4), Tensors((None, In((2,), "Int"))), (2, 2, 4)),
            ((1, 2, 8, 4), Tensors((None, None, In((3,), "Long"))), (2, 3, 4)),
            ((5, 6, 7), Tensors((In((2,), "Long"), None, In((1,), "Int"))), (6,)),
            ((5, 6), Tensors((In((0,), "Long"),)), (6,))], domain="small"),
    # Repeated indices add up (index values in [-3, 3] repeat among 6 draws).
    OpCase("index_put.default", ("Float", "Long", "Bool"),
           [((5, 6), Tensors((In((6,), "Long"),)), (6, 6)),
            ((2, 5, 4), Tensors((None, In((3,), "Int"))), (4,))], args=(True,),
           domain="small", name="accumulate"),
    OpCase("index_put.default", others("Float", "Bool", "Half", "Long"),
           [((5, 6), Tensors((In((3,), "Long"),)), (3, 6))], domain="small", name="dtypes"),
    # Bool (mask) indices, x[mask] = v: a mask over k dims indexes them with its true
    # positions (row-major); values broadcast to [count, rest...]. A mask after a None,
    # beside a Long index, accumulated, all false, and empty.
    OpCase("index_put.default", ("Float", "Bool", "Half", "Long"),
           [((5, 6), Tensors((In((5, 6), "Bool"),)), ()),
            ((5, 6, 3), Tensors((In((5, 6), "Bool"),)), (3,)),
            ((4, 5, 6), Tensors((None, In((5,), "Bool"))), (6,)),
            ((4, 5), Tensors((In((4,), "Bool"), In((1,), "Long"))), (1,)),
            ((3, 4), Tensors((Given((3, 4), "Bool", values=(0,) * 12),)), ()),
            ((0, 3), Tensors((In((0, 3), "Bool"),)), ())], domain="small", name="mask"),
    OpCase("index_put.default", ("Float", "Long"),
           [((2, 4, 3), Tensors((In((2, 4), "Bool"),)), (3,)),
            ((6, 2), Tensors((In((6,), "Bool"), None)), ())], args=(True,), domain="small",
           name="mask_accumulate"),
    # Index values in [1, 6]: in range for dims of 7.
    OpCase("index_select.default", ("Float", "Bool", "Half", "Long"),
           [((7, 3), Arg(0), In((4,), "Long")), ((2, 7, 3), Arg(1), In((), "Int")),
            ((2, 7), Arg(-1), In((0,), "Long")), ((7,), Arg(0), In((3,), "Int"))],
           domain="positive"),
    # Index values in [1, 6]: in range for gathered dims of 7 (torch refuses negatives).
    OpCase("gather.default", ("Float", "Bool", "Half", "Long"),
           [((7, 3), Arg(0), In((4, 3), "Long")), ((2, 7, 3), Arg(1), In((2, 5, 2), "Long")),
            ((3, 7), Arg(-1), In((2, 0), "Long")), ((7,), Arg(0), In((9,), "Long"))],
           domain="positive"),
    # torch takes an Int index too, and an empty index of any dtype.
    OpCase("gather.default", ("Float",),
           [((7, 3), Arg(0), In((4, 3), "Int")), ((5,), Arg(0), In((0,), "Byte")),
            ((5,), Arg(0), In((2, 0), "Byte"))], domain="positive", name="index_dtypes"),
    OpCase("gather.default", others("Float", "Bool", "Half", "Long"),
           [((7, 3), Arg(0), In((4, 3), "Long"))], domain="positive", name="dtypes"),
    OpCase("split_copy.Tensor", ("Float", "Bool", "Half", "Long"),
           [((5, 3), Arg(2)), ((2, 7), Arg(3), Arg(-1)), ((4, 2), Arg(4)), ((0, 3), Arg(2))]),
    OpCase("split_with_sizes_copy.default", ("Float", "Bool", "Half", "Long"),
           [((5, 3), Arg([2, 0, 3])), ((2, 6), Arg([1, 5]), Arg(1)), ((2, 6), Arg([6]), Arg(-1))]),
    OpCase("native_layer_norm.default", FLOAT,
           [((2, 3, 5), Arg([5]), (5,), (5,), Arg(1e-5)),
            ((4, 6), Arg([6]), Arg(None), Arg(None), Arg(1e-5)),
            ((2, 3, 4), Arg([3, 4]), (3, 4), Arg(None), Arg(1e-3)),
            ((0, 5), Arg([5]), (5,), (5,), Arg(1e-5))]),

    # Every dtype a kernel's manifest `dtypes:` lists runs at least once (test_ops.py
    # checks): the dtypes the cases above leave out, on one plain call.
    OpCase("addmm.default", ("Byte", "Char", "Short"), [((3,), (2, 4), (4, 3))],
           name="small_ints", domain="small"),
    OpCase("mean.dim", INT, [((3, 4),)], args=([-1],), kwargs={"dtype": Dtype("Float")},
           name="int_in"),
    OpCase("embedding.default", others("Char", "Int", "Long", "Half", "Float"),
           [((10, 4), In((2, 3), "Long", domain="positive"))], name="dtypes"),
    OpCase("cat.default", others("Float", "Bool", "Half", "Long"),
           [(Tensors(((2, 3), (1, 3))),)], name="dtypes"),
    # Mixed dtypes promote as torch does: Float, Double and Half give Double; integers
    # widen (Byte with Char gives Short); Bool joins any kind; an empty input counts too.
    OpCase("cat.default", ("Float",),
           [(Tensors(((2, 3), In((1, 3), "Double"), In((2, 3), "Half"))),),
            (Tensors(((2, 2), In((2, 1), "Int"))), Arg(1)),
            (Tensors((In((2, 3), "Half"), In((0,), "Double"), (1, 3))),),
            (Tensors((In((3, 2), perm=(1, 0)), In((2, 1), "Long"))), Arg(-1))], name="mixed"),
    OpCase("cat.default", ("Byte",),
           [(Tensors(((2, 3), In((1, 3), "Char"))),), (Tensors(((1, 2), In((1, 2), "Bool"))),),
            (Tensors((In((2,), "Bool"), In((3,), "Long"))),)], name="mixed_int"),
    OpCase("index.Tensor", others("Float", "Bool", "Half", "Long"),
           [((5, 6), Tensors((None, In((2,), "Long"))))], domain="small", name="dtypes"),
    OpCase("index_select.default", others("Float", "Bool", "Half", "Long"),
           [((7, 3), Arg(0), In((4,), "Long"))], domain="positive", name="dtypes"),
    OpCase("expand_copy.default", others("Float", "Char", "Half", "Long"), [((3, 1),)],
           args=([3, 2],), name="dtypes"),
    OpCase("select_copy.int", others("Float", "Int", "Bool"), [((3, 4),)], args=(1, 2),
           name="dtypes"),
    OpCase("slice_copy.Tensor", others("Float", "Long", "Bool", "Half"), [((3, 8),)],
           args=(1, 1, 6, 2), name="dtypes"),
    OpCase("split_copy.Tensor", others("Float", "Bool", "Half", "Long"), [((5, 3), Arg(2))],
           name="dtypes"),
    OpCase("split_with_sizes_copy.default", others("Float", "Bool", "Half", "Long"),
           [((5, 3), Arg([2, 3]))], name="dtypes"),
    OpCase("squeeze_copy.dims", others("Float", "Short"), [((1, 3, 1, 2),)], args=([0, 2],),
           name="dtypes"),
    OpCase("unsqueeze_copy.default", others("Float", "Long", "Bool"), [((2, 3),)], args=(0,),
           name="dtypes"),
    OpCase("view_copy.default", others("Float", "Long", "Bool", "Half"), [((2, 3, 4),)],
           args=([4, -1],), name="dtypes"),

    # The optimized convolution (kernels/optimized/util/conv_gemm.h): im2col blocks of up
    # to 256 deep and 16384 / depth columns, the GEMM's 8 x 32 tiles, a bias written
    # first; 1x1 read in place; under 4 output channels a group, direct loops. Odd
    # channel counts (1, 7, 65, 129), depths of 1 to 3 blocks, planes of several column
    # blocks, strides, dilation, padding, groups, 1-D; integer values keep sums exact.
    OpCase("convolution.default", ("Float",),
           [((1, 65, 9, 9), Constant((7, 65, 3, 3)), Constant((7,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((2, 3, 40, 41), Constant((65, 3, 3, 3)), Arg(None), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 7, 19, 17), Constant((129, 7, 3, 3)), Constant((129,)), Arg([2, 2]),
             Arg([2, 1]), Arg([2, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 65, 7, 7), Constant((129, 65, 1, 1)), Constant((129,)), Arg([1, 1]),
             Arg([0, 0]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 65, 8, 8), Constant((7, 65, 1, 1)), Arg(None), Arg([2, 2]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 14, 9, 9), Constant((8, 7, 3, 3)), Constant((8,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(2)),
            ((1, 7, 9, 9), Constant((7, 1, 3, 3)), Constant((7,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(7)),
            ((1, 1, 1, 1), Constant((1, 1, 1, 1)), Arg(None), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            (In((1, 9, 9, 7), perm=(0, 3, 1, 2)), Constant((65, 7, 5, 5)), Constant((65,)),
             Arg([1, 1]), Arg([2, 2]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1))],
           domain="small", name="odd_sizes"),
    # The narrow path (util/conv_gemm.h, conv_narrow): stride 1, rows of under 16 outputs,
    # patches as runs of zero-padded planes and a wide product: several column and depth
    # blocks (a 200-row plane, 576 deep), the packed product (130 output channels), 1x3
    # and 5x5 filters, asymmetric padding, groups, no bias.
    OpCase("convolution.default", ("Float",),
           [((1, 64, 200, 10), Constant((8, 64, 3, 3)), Constant((8,)), Arg([1, 1]),
             Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 40, 12, 12), Constant((130, 40, 3, 3)), Constant((130,)), Arg([1, 1]),
             Arg([0, 0]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((2, 6, 5, 13), Constant((9, 6, 1, 3)), Arg(None), Arg([1, 1]), Arg([0, 2]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 8, 11, 6), Constant((12, 4, 5, 5)), Constant((12,)), Arg([1, 1]),
             Arg([2, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(2))],
           domain="small", name="narrow"),
    # Winograd F(2x2, 3x3) (util/conv_winograd.h): 3x3, stride 1, 32 or more channels each
    # side, 32 or more 2x2 tiles. Odd output sizes (the last tile half outside), paddings
    # 0 to 2, output channels in several blocks of 64 (65, 129), a plane in several bands
    # of tile rows (70x70: 35 tile rows of 35), no bias, a batch of 2.
    OpCase("convolution.default", ("Float",),
           [((1, 33, 13, 11), Constant((65, 33, 3, 3)), Constant((65,)), Arg([1, 1]),
             Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((2, 40, 15, 14), Constant((32, 40, 3, 3)), Arg(None), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 64, 9, 17), Constant((129, 64, 3, 3)), Constant((129,)), Arg([1, 1]),
             Arg([2, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 32, 70, 70), Constant((32, 32, 3, 3)), Constant((32,)), Arg([1, 1]),
             Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1))],
           domain="small", name="winograd"),
    OpCase("convolution.default", ("Float",),
           [((1, 7, 65), Constant((8, 7, 5)), Constant((8,)), Arg([1]), Arg([2]), Arg([1]),
             Arg(False), Arg([0]), Arg(1)),
            ((2, 65, 129), Constant((7, 65, 3)), Arg(None), Arg([2]), Arg([1]), Arg([3]),
             Arg(False), Arg([0]), Arg(1))],
           domain="small", name="odd_sizes_1d"),
    # Depthwise (util/conv_depthwise.h): vectors of up to 16 output columns across each
    # row's inner windows (stride 1 and 2, dilation), the padded edges and stride 3 one
    # column at a time; a channel multiplier of 2 and of 65, no bias, 1-D.
    OpCase("convolution.default", ("Float",),
           [((1, 7, 9, 40), Constant((7, 1, 3, 3)), Constant((7,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(7)),
            ((2, 5, 11, 67), Constant((5, 1, 3, 3)), Constant((5,)), Arg([2, 2]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(5)),
            ((1, 3, 8, 70), Constant((6, 1, 5, 5)), Arg(None), Arg([1, 3]), Arg([2, 2]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(3)),
            ((1, 4, 10, 65), Constant((4, 1, 3, 3)), Constant((4,)), Arg([2, 1]), Arg([2, 2]),
             Arg([2, 2]), Arg(False), Arg([0, 0]), Arg(4)),
            ((1, 1, 6, 33), Constant((65, 1, 3, 3)), Constant((65,)), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            (In((1, 9, 40, 7), perm=(0, 3, 1, 2)), Constant((7, 1, 3, 3)), Constant((7,)),
             Arg([1, 2]), Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(7))],
           domain="small", name="depthwise"),
    OpCase("convolution.default", ("Float",),
           [((2, 7, 129), Constant((7, 1, 5)), Constant((7,)), Arg([2]), Arg([2]), Arg([1]),
             Arg(False), Arg([0]), Arg(7))],
           domain="small", name="depthwise_1d"),

    # --- convolution and normalization ---
    # convolution: input, weight, bias, then stride, padding, dilation, transposed,
    # output_padding, groups as Args. Weights are constants, as in a model. util/conv.h
    # runs a matrix product over gathered patches when a group has >= 4 output channels
    # (blocks of 256 in depth, 32 to 8192/depth columns), else row by row in 256-column
    # tiles; the shapes below cross those edges.
    OpCase("convolution.default", ("Float", "Double"),
           [((2, 3, 7, 9), Constant((4, 3, 3, 3)), Constant((4,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 5, 11, 10), Constant((8, 5, 5, 5)), Arg(None), Arg([2, 2]), Arg([2, 2]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 3, 12, 13), Constant((6, 3, 3, 2)), Constant((6,)), Arg([2, 1]), Arg([0, 3]),
             Arg([2, 3]), Arg(False), Arg([0, 0]), Arg(1)),
            ((2, 16, 5, 7), Constant((12, 16, 1, 1)), Constant((12,)), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 4, 3, 3), Constant((5, 4, 3, 3)), Arg(None), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 2, 3, 4), Constant((4, 2, 2, 2)), Constant((4,)), Arg([1, 1]), Arg([3, 3]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 2, 6, 7), Constant((4, 2, 3, 3)), Constant((4,)), Arg([2]), Arg([1]), Arg([1]),
             Arg(False), Arg([0]), Arg(1)),
            ((1, 3, 5, 5), (4, 3, 3, 3), (4,), Arg([1, 1]), Arg([0, 0]), Arg([1, 1]),
             Arg(False), Arg([0, 0]), Arg(1)),
            ((0, 3, 5, 5), Constant((4, 3, 3, 3)), Constant((4,)), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1))]),
    # Deep sums (up to 768 terms) of small integers are exact, so any order gives torch's.
    OpCase("convolution.default", ("Float", "Double"),
           [((1, 3, 23, 21), Constant((8, 3, 7, 7)), Constant((8,)), Arg([2, 2]), Arg([3, 3]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 32, 9, 40), Constant((8, 32, 3, 3)), Constant((8,)), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 3, 32, 48), Constant((16, 3, 16, 16)), Constant((16,)), Arg([16, 16]),
             Arg([0, 0]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1))],
           domain="small", name="large"),
    OpCase("convolution.default", ("Float", "Double"),
           [((2, 4, 6, 7), Constant((8, 2, 3, 3)), Constant((8,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(2)),
            ((1, 6, 5, 5), Constant((3, 2, 3, 3)), Arg(None), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(3)),
            ((1, 8, 9, 9), Constant((8, 1, 3, 3)), Constant((8,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(8)),
            ((2, 6, 10, 11), Constant((6, 1, 3, 3)), Arg(None), Arg([2, 2]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(6)),
            ((1, 4, 7, 8), Constant((8, 1, 5, 5)), Constant((8,)), Arg([1, 1]), Arg([2, 2]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(4)),
            ((1, 3, 6, 6), Constant((12, 1, 3, 3)), Constant((12,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(3)),
            ((1, 4, 12, 12), Constant((4, 1, 3, 3)), Arg(None), Arg([1, 1]), Arg([2, 2]),
             Arg([2, 2]), Arg(False), Arg([0, 0]), Arg(4)),
            ((1, 2, 3, 300), Constant((2, 1, 3, 3)), Constant((2,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(2))],
           name="groups"),
    OpCase("convolution.default", ("Float", "Double"),
           [((2, 4, 17), Constant((6, 4, 3)), Constant((6,)), Arg([1]), Arg([1]), Arg([1]),
             Arg(False), Arg([0]), Arg(1)),
            ((1, 4, 20), Constant((8, 2, 3)), Arg(None), Arg([2]), Arg([2]), Arg([2]),
             Arg(False), Arg([0]), Arg(2)),
            ((1, 5, 9), Constant((5, 1, 4)), Constant((5,)), Arg([1]), Arg([0]), Arg([1]),
             Arg(False), Arg([0]), Arg(5)),
            ((3, 8, 5), Constant((4, 8, 1)), Constant((4,)), Arg([1]), Arg([0]), Arg([1]),
             Arg(False), Arg([0]), Arg(1)),
            ((1, 3, 600), Constant((4, 3, 5)), Constant((4,)), Arg([1]), Arg([2]), Arg([1]),
             Arg(False), Arg([0]), Arg(1))],
           name="1d"),
    OpCase("convolution.default", ("Float", "Double"),
           [((1, 4, 5, 6), Constant((4, 3, 3, 3)), Constant((3,)), Arg([2, 2]), Arg([1, 1]),
             Arg([1, 1]), Arg(True), Arg([1, 1]), Arg(1)),
            ((2, 4, 4, 5), Constant((4, 3, 3, 2)), Arg(None), Arg([2, 3]), Arg([0, 1]),
             Arg([2, 1]), Arg(True), Arg([1, 2]), Arg(2)),
            ((1, 3, 4, 4), Constant((3, 5, 1, 1)), Constant((5,)), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(True), Arg([0, 0]), Arg(1)),
            ((1, 2, 3, 3), Constant((2, 2, 3, 3)), Arg(None), Arg([1, 1]), Arg([0, 0]),
             Arg([2, 2]), Arg(True), Arg([1, 1]), Arg(1)),
            ((1, 2, 5, 5), Constant((2, 3, 3, 3)), Constant((3,)), Arg([1, 1]), Arg([2, 2]),
             Arg([1, 1]), Arg(True), Arg([0, 0]), Arg(1)),
            ((1, 2, 2, 150), Constant((2, 2, 3, 3)), Arg(None), Arg([2, 2]), Arg([0, 0]),
             Arg([1, 1]), Arg(True), Arg([1, 1]), Arg(1)),
            ((2, 3, 7), Constant((3, 4, 4)), Constant((4,)), Arg([3]), Arg([1]), Arg([1]),
             Arg(True), Arg([2]), Arg(1)),
            ((1, 4, 6), Constant((4, 2, 3)), Arg(None), Arg([2]), Arg([0]), Arg([1]),
             Arg(True), Arg([0]), Arg(4))],
           name="transposed"),
    # 16-bit floats sum in float: small integer inputs keep the sums exact, so both sides
    # round the same value. The last call's depth (1152) is too deep for one panel.
    OpCase("convolution.default", ("Half", "BFloat16", "Float"),
           [((1, 3, 7, 9), Constant((4, 3, 3, 3)), Constant((4,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 4, 7, 8), Constant((8, 1, 3, 3)), Constant((8,)), Arg([2, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(4)),
            ((1, 4, 9), Constant((4, 3, 3)), Constant((3,)), Arg([2]), Arg([1]), Arg([1]),
             Arg(True), Arg([1]), Arg(1)),
            ((1, 128, 3, 3), Constant((4, 128, 3, 3)), Arg(None), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1))],
           domain="small", name="small_ints"),

    # 3-D (Conv3d, video models): the direct loops over a depth; odd sizes, stride,
    # padding, dilation and groups in each dim, no bias, an empty batch, transposed.
    OpCase("convolution.default", ("Float", "Double"),
           [((2, 3, 5, 6, 7), Constant((4, 3, 3, 3, 3)), Constant((4,)), Arg([1, 1, 1]),
             Arg([1, 1, 1]), Arg([1, 1, 1]), Arg(False), Arg([0, 0, 0]), Arg(1)),
            ((1, 4, 7, 5, 9), Constant((6, 2, 3, 2, 3)), Arg(None), Arg([2, 1, 3]),
             Arg([1, 0, 2]), Arg([2, 1, 1]), Arg(False), Arg([0, 0, 0]), Arg(2)),
            ((1, 3, 4, 4, 4), Constant((3, 1, 1, 3, 3)), Constant((3,)), Arg([1]), Arg([0]),
             Arg([1]), Arg(False), Arg([0]), Arg(3)),
            ((1, 2, 3, 5, 300), Constant((5, 2, 2, 1, 3)), Constant((5,)), Arg([1, 1, 1]),
             Arg([0, 0, 1]), Arg([1, 1, 1]), Arg(False), Arg([0, 0, 0]), Arg(1)),
            ((1, 2, 1, 1, 1), Constant((3, 2, 1, 1, 1)), Constant((3,)), Arg([1, 1, 1]),
             Arg([0, 0, 0]), Arg([1, 1, 1]), Arg(False), Arg([0, 0, 0]), Arg(1)),
            ((0, 2, 3, 3, 3), Constant((2, 2, 2, 2, 2)), Constant((2,)), Arg([1, 1, 1]),
             Arg([0, 0, 0]), Arg([1, 1, 1]), Arg(False), Arg([0, 0, 0]), Arg(1))],
           name="3d"),
    OpCase("convolution.default", ("Float", "Double"),
           [((1, 4, 3, 4, 5), Constant((4, 3, 3, 3, 2)), Constant((6,)), Arg([2, 2, 1]),
             Arg([1, 1, 0]), Arg([1, 1, 2]), Arg(True), Arg([1, 0, 0]), Arg(2)),
            ((2, 3, 2, 3, 3), Constant((3, 2, 2, 2, 2)), Arg(None), Arg([1, 1, 1]),
             Arg([0, 0, 0]), Arg([1, 1, 1]), Arg(True), Arg([0, 0, 0]), Arg(1))],
           name="3d_transposed"),
    OpCase("convolution.default", ("Half", "BFloat16"),
           [((1, 3, 4, 5, 6), Constant((4, 3, 3, 3, 3)), Constant((4,)), Arg([1, 2, 1]),
             Arg([1, 1, 1]), Arg([1, 1, 1]), Arg(False), Arg([0, 0, 0]), Arg(1))],
           domain="small", name="3d_small_ints"),

    # Batch norm in eval: input, weight, bias, running_mean, running_var, momentum, eps;
    # out1 and out2 are empty, as torch returns them.
    OpCase("_native_batch_norm_legit_no_training.default", FLOAT,
           [((3, 4), Constant((4,)), Constant((4,)), Constant((4,)),
             Constant((4,), domain="positive"), Arg(0.1), Arg(1e-5)),
            ((2, 5, 7), Arg(None), Arg(None), Constant((5,)), Constant((5,), domain="positive"),
             Arg(0.1), Arg(1e-3)),
            ((2, 3, 4, 5), Constant((3,)), Constant((3,)), Constant((3,)),
             Constant((3,), domain="positive"), Arg(0.1), Arg(1e-5)),
            ((1, 6, 2, 3), Constant((6,)), Arg(None), Constant((6,)),
             Constant((6,), domain="positive"), Arg(0.1), Arg(1e-5)),
            ((1, 2, 2, 2, 3), Arg(None), Constant((2,)), Constant((2,)),
             Constant((2,), domain="positive"), Arg(0.1), Arg(1e-5)),
            ((0, 3, 2), Constant((3,)), Constant((3,)), Constant((3,)),
             Constant((3,), domain="positive"), Arg(0.1), Arg(1e-5))]),
    # Group norm: input, weight, bias, N, C, HxW, group, eps.
    OpCase("native_group_norm.default", FLOAT,
           [((2, 4, 3, 3), Constant((4,)), Constant((4,)), Arg(2), Arg(4), Arg(9), Arg(2),
             Arg(1e-5)),
            ((2, 6, 5), Arg(None), Arg(None), Arg(2), Arg(6), Arg(5), Arg(3), Arg(1e-5)),
            ((1, 3, 4, 5), Constant((3,)), Constant((3,)), Arg(1), Arg(3), Arg(20), Arg(1),
             Arg(1e-5)),
            ((2, 5, 6), Constant((5,)), Arg(None), Arg(2), Arg(5), Arg(6), Arg(5), Arg(1e-3)),
            ((3, 4), Constant((4,)), Constant((4,)), Arg(3), Arg(4), Arg(1), Arg(2), Arg(1e-5))]),
    # Constant padding: pairs from the last dim backwards; negative pads crop.
    OpCase("constant_pad_nd.default", ALL,
           [((2, 3, 4), Arg([1, 2])), ((2, 3, 4), Arg([0, 1, 2, 0]), Arg(3)),
            ((3, 5), Arg([-1, 1, 1, -2]), Arg(1)), ((4,), Arg([2, 0]), Arg(1)),
            ((2, 2, 3), Arg([1, 1, 1, 1, 1, 1]), Arg(1)), ((2, 3), Arg([-2, -1])),
            ((0, 3), Arg([1, 1, 1, 1]), Arg(1)), ((2, 3), Arg([])), ((), Arg([]))]),
    OpCase("constant_pad_nd.default", FLOAT, [((2, 3, 4), Arg([1, 1, -1, 2]), Arg(-1.5))],
           name="float"),
    OpCase("constant_pad_nd.default", INT, [((2, 3), Arg([1, 1]), Arg(-1))], name="negative"),
    # Only growing pads, of 2- to 5-d tensors and odd sizes: the ones XNNPACK runs too.
    OpCase("constant_pad_nd.default", FLOAT,
           [((2, 3, 5, 7), Arg([1, 2, 0, 3]), Arg(1.5)), ((2, 3, 7), Arg([2, 1, 1, 0, 0, 1]),
            Arg(-2.0)), ((3, 5), Arg([0, 0, 2, 1])), ((2, 1, 3, 2, 2), Arg([1, 1, 0, 2]),
            Arg(0.25))], name="grow"),
    # PReLU (torch.export: where(x > 0, x, w * x)): a weight per channel or one for all.
    OpCase("prelu.default", FLOAT, [((2, 3, 5, 7), Constant((3,))), ((4, 5), Constant((5,))),
                                    ((2, 4, 7), Constant((1,)))]),

    # --- pooling, resampling and padding ---
    # Max pooling returns (values, indices): both are compared. Random integers tie often;
    # the first maximum must win, as in torch. Arguments: kernel_size, stride, padding,
    # dilation, ceil_mode (an empty stride means the kernel size; one value means both dims).
    OpCase("max_pool2d_with_indices.default", INT + FLOAT,
           [((2, 3, 7, 9),), ((3, 8, 8),), ((1, 1, 3, 3),)], args=([3, 3], [2, 2], [1, 1])),
    # ceil_mode: the last windows hang off the bottom/right edge; 11 with kernel 3, stride 3
    # and padding 1 drops the window that would start in the right padding (torch's rule).
    OpCase("max_pool2d_with_indices.default", ("Float", "Int"),
           [((2, 2, 8, 10),), ((2, 11, 8),)], args=([3, 3], [2, 2], [1, 1], [1, 1], True),
           name="ceil"),
    OpCase("max_pool2d_with_indices.default", ("Float", "Double"),
           [((1, 2, 11, 8),), ((2, 7, 5),)], args=([3, 3], [3, 3], [1, 1], [1, 1], True),
           name="ceil_drop"),
    OpCase("max_pool2d_with_indices.default", ("Float", "Half"),
           [((2, 2, 9, 8),), ((3, 10, 7),)], args=([3, 2], [1, 2], [1, 0], [2, 1]),
           name="dilation"),
    OpCase("max_pool2d_with_indices.default", ("Float", "Char"),
           [((2, 3, 10, 9),)], args=([3, 3], [2, 3], [1, 1], [2, 2], True),
           name="dilation_ceil"),
    OpCase("max_pool2d_with_indices.default", ("Float", "Long"),
           [((2, 3, 7, 9),), ((4, 5, 5),)], args=([2, 3],), name="defaults"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((2, 3, 7, 9),)], args=([3], [2], [1], [1]), name="single_values"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((2, 3, 5, 5),)], args=([5, 5], [1, 1], [2, 2]), name="kernel_covers_input"),
    # MaxPool1d exports as unsqueeze, this, squeeze.
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((2, 3, 1, 11),)], args=([1, 3], [1, 2], [0, 1], [1, 1], True), name="as_1d"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((0, 3, 6, 6),)], args=([2, 2],), name="empty_batch"),
    # Dilation 3 with padding 1 over 2 rows: each window's taps (-1 and 2) miss the input,
    # which gives the lowest value (-inf) and the index of the first tap past the padding.
    OpCase("max_pool2d_with_indices.default", ("Float", "Short"),
           [((1, 2, 2, 4),)], args=([2, 1], [1, 1], [1, 0], [3, 1]), name="window_in_padding"),
    # The optimized kernel: vectors of up to 16 output columns across a row's inner windows
    # (stride 1 or 2), scalar cells at the edges and for other strides; a NaN among a
    # vector's taps sends its cells to the scalar loop. Small integers tie often.
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((1, 3, 9, 70),), ((2, 2, 7, 65),)], args=([3, 3], [2, 2], [1, 1]),
           domain="small", name="wide_rows"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((1, 2, 5, 41),)], args=([2, 3], [1, 1], [0, 1], [1, 2]), domain="small",
           name="wide_rows_stride1"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [(Computed((1, 2, 6, 70), by="log"),)], args=([3, 3], [2, 2], [1, 1]),
           domain="small", name="wide_rows_nan"),

    # Arguments: kernel_size, stride, padding, ceil_mode, count_include_pad,
    # divisor_override.
    OpCase("avg_pool2d.default", FLOAT,
           [((2, 3, 7, 9),), ((3, 8, 8),), ((1, 1, 3, 3),)], args=([3, 3], [2, 2], [1, 1])),
    OpCase("avg_pool2d.default", FLOAT,
           [((2, 3, 7, 9),), ((3, 8, 8),)], args=([3, 3], [2, 2], [1, 1], False, False),
           name="exclude_pad"),
    # ceil_mode: the divisor of a window hanging off the edge counts the padding but not
    # what lies past it (count_include_pad), or only the input (not).
    OpCase("avg_pool2d.default", ("Float", "Double"),
           [((2, 2, 8, 10),), ((2, 11, 8),)], args=([3, 3], [2, 2], [1, 1], True, True),
           name="ceil"),
    OpCase("avg_pool2d.default", ("Float", "Half"),
           [((2, 2, 8, 10),), ((2, 11, 8),)], args=([3, 3], [3, 3], [1, 1], True, False),
           name="ceil_exclude_pad"),
    OpCase("avg_pool2d.default", ("Float", "BFloat16"),
           [((2, 3, 7, 9),), ((3, 6, 5),)], args=([3, 2], [1, 2], [1, 1], True, True, 5),
           name="divisor"),
    OpCase("avg_pool2d.default", ("Float",),
           [((2, 3, 7, 9),)], args=([2, 2], [2, 2], [1, 1], False, False, -3),
           name="negative_divisor"),
    OpCase("avg_pool2d.default", ("Float", "Double"),
           [((2, 3, 7, 9),), ((4, 5, 5),)], args=([2, 3],), name="defaults"),
    OpCase("avg_pool2d.default", ("Float",),
           [((2, 3, 7, 9),)], args=([3], [2], [1]), name="single_values"),
    # AvgPool1d exports as unsqueeze, this, squeeze.
    OpCase("avg_pool2d.default", ("Float",),
           [((2, 3, 1, 11),)], args=([1, 3], [1, 2], [0, 1], True, False), name="as_1d"),
    OpCase("avg_pool2d.default", ("Float",),
           [((0, 3, 6, 6),)], args=([2, 2],), name="empty_batch"),

    # 3-d pooling (MaxPool3d, AvgPool3d): the 2-d rules per dim, over D x H x W volumes
    # of 4-d and 5-d inputs. Arguments as the 2-d ops'.
    OpCase("max_pool3d_with_indices.default", INT + FLOAT,
           [((2, 3, 5, 6, 7),), ((3, 4, 5, 5),), ((1, 1, 2, 2, 2),)],
           args=([3, 3, 3], [2, 2, 2], [1, 1, 1])),
    OpCase("max_pool3d_with_indices.default", ("Float", "Int"),
           [((1, 2, 6, 8, 7),), ((2, 7, 8, 5),)], args=([3, 2, 3], [2, 2, 3], [1, 1, 1],
                                                      [1, 1, 1], True), name="ceil"),
    OpCase("max_pool3d_with_indices.default", ("Float", "Half"),
           [((1, 2, 7, 6, 9),)], args=([2, 3, 2], [1, 2, 1], [1, 0, 1], [2, 1, 3]),
           name="dilation"),
    OpCase("max_pool3d_with_indices.default", ("Float", "Long"),
           [((2, 2, 4, 5, 6),), ((2, 4, 4, 4),)], args=([2],), name="defaults"),
    OpCase("max_pool3d_with_indices.default", ("Float",), [((0, 2, 4, 4, 4),)], args=([2, 2, 2],),
           name="empty_batch"),
    OpCase("max_pool3d_with_indices.default", ("Float", "Short"), [((1, 2, 2, 2, 4),)],
           args=([2, 2, 1], [1, 1, 1], [1, 1, 0], [3, 3, 1]), name="window_in_padding"),
    OpCase("max_pool3d_with_indices.default", ("Float",),
           [(Computed((1, 2, 4, 5, 6), by="log"),)], args=([2, 2, 2], [1, 2, 2]),
           domain="small", name="nan"),
    OpCase("avg_pool3d.default", ("Float", "Double"),
           [((2, 3, 5, 6, 7),), ((3, 4, 5, 5),), ((1, 1, 3, 3, 3),)],
           args=([3, 3, 3], [2, 2, 2], [1, 1, 1])),
    OpCase("avg_pool3d.default", ("Float", "Double"), [((2, 2, 5, 7, 6),)],
           args=([3, 3, 2], [2, 3, 2], [1, 1, 1], False, False), name="exclude_pad"),
    OpCase("avg_pool3d.default", ("Float", "Double"), [((1, 2, 6, 8, 7),), ((2, 7, 8, 5),)],
           args=([3, 3, 3], [2, 2, 3], [1, 1, 1], True, True), name="ceil"),
    OpCase("avg_pool3d.default", ("Float",), [((1, 2, 6, 8, 7),)],
           args=([3, 3, 3], [3, 3, 3], [1, 1, 1], True, False), name="ceil_exclude_pad"),
    OpCase("avg_pool3d.default", ("Float",), [((1, 2, 5, 6, 7),)],
           args=([2, 3, 2], [1, 2, 2], [1, 1, 0], False, True, -5), name="divisor"),
    OpCase("avg_pool3d.default", ("Float",), [((2, 2, 4, 5, 6),)], args=([2],),
           name="defaults"),
    OpCase("avg_pool3d.default", ("Float",), [((0, 2, 4, 4, 4),)], args=([2, 2, 2],),
           name="empty_batch"),

    # grid_sampler_2d (F.grid_sample): input, grid, interpolation_mode (0 bilinear, 1
    # nearest, 2 bicubic), padding_mode (0 zeros, 1 border, 2 reflection), align_corners.
    # Random grids reach past [-1, 1] on every side; a 1x1 input has nothing to reflect
    # over; the given grid holds the corners, the centre and points half a pixel off.
    *[OpCase("grid_sampler_2d.default", dtypes,
             [((2, 3, 5, 7), (2, 4, 6, 2)), ((1, 2, 1, 1), (1, 2, 3, 2)),
              ((1, 2, 4, 4), Given((1, 3, 3, 2), values=(
                  -1, -1, 1, 1, 0, 0, -1, 1, 1, -1, 0.125, 0.375, 1.5, -1.5, -1.25, 2.0,
                  0.625, -0.875))),
              ((0, 2, 3, 3), (0, 2, 2, 2)), ((1, 2, 3, 3), (1, 0, 3, 2))],
             args=(mode, padding, align),
             name=f"{mode_name}_{padding_name}{'_align' if align else ''}")
      for mode, mode_name, dtypes in [(0, "bilinear", ("Float", "Double")),
                                      (1, "nearest", ("Float", "Double")),
                                      (2, "bicubic", ("Float",))]
      for padding, padding_name in [(0, "zeros"), (1, "border"), (2, "reflection")]
      for align in (False, True)],
    OpCase("grid_sampler_2d.default", ("Half", "BFloat16"),
           [((1, 2, 5, 6), (1, 3, 4, 2))], args=(0, 0, False), domain="small",
           name="bilinear_16bit"),
    # F.affine_grid's grid: a rotation and a scale (the spatial transformer's).
    OpCase("grid_sampler_2d.default", ("Float",),
           [((2, 3, 6, 8), Computed((2, 2, 3), by="affine_grid_generator",
                                    args=([2, 3, 5, 7], False)))],
           args=(0, 0, False), name="affine_grid"),

    # grid_sampler_3d (F.grid_sample on 5-D input): the same modes but bicubic, which
    # torch has only in 2-D; a grid of (x, y, z). The given grid holds corners, the
    # centre and points half a voxel off and outside.
    *[OpCase("grid_sampler_3d.default", ("Float", "Double"),
             [((2, 3, 4, 5, 6), (2, 3, 2, 4, 3)), ((1, 2, 1, 1, 1), (1, 2, 1, 3, 3)),
              ((1, 2, 3, 4, 4), Given((1, 2, 3, 1, 3), values=(
                  -1, -1, -1, 1, 1, 1, 0, 0, 0, 0.125, -0.375, 0.625, 1.5, -1.25, 2.0,
                  -0.875, 0.3, -1.5))),
              ((0, 2, 3, 3, 3), (0, 2, 2, 2, 3)), ((1, 2, 3, 3, 3), (1, 0, 2, 3, 3))],
             args=(mode, padding, align),
             name=f"{mode_name}_{padding_name}{'_align' if align else ''}")
      for mode, mode_name in [(0, "bilinear"), (1, "nearest")]
      for padding, padding_name in [(0, "zeros"), (1, "border"), (2, "reflection")]
      for align in (False, True)],
    OpCase("grid_sampler_3d.default", ("Half", "BFloat16"),
           [((1, 2, 3, 4, 5), (1, 2, 3, 2, 3))], args=(0, 0, False), domain="small",
           name="bilinear_16bit"),
    OpCase("grid_sampler_3d.default", ("Float",),
           [((1, 2, 3, 4, 5), Computed((1, 3, 4), by="affine_grid_generator",
                                       args=([1, 2, 3, 4, 5], True)))],
           args=(0, 1, True), name="affine_grid"),

    # Adaptive pooling: output cell i of n covers [floor(i*in/n), ceil((i+1)*in/n)).
    OpCase("_adaptive_avg_pool2d.default", FLOAT, [((2, 3, 7, 9),), ((3, 7, 9),)],
           args=([4, 5],), name="smaller"),
    OpCase("_adaptive_avg_pool2d.default", ("Float", "Double"), [((1, 2, 7, 9),)],
           args=([10, 13],), name="bigger"),
    OpCase("_adaptive_avg_pool2d.default", ("Float", "Half"), [((2, 7, 9),)], args=([7, 9],),
           name="equal"),
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((2, 3, 8, 9),)], args=([4, 3],),
           name="divides"),
    OpCase("_adaptive_avg_pool2d.default", ("Float", "BFloat16"), [((2, 3, 5, 6),)],
           args=([1, 1],), name="one"),
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((1, 3, 5, 9),)], args=([2, 12],),
           name="mixed"),
    # AdaptiveAvgPool1d exports as unsqueeze, this, squeeze.
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((2, 3, 1, 11),)], args=([1, 4],),
           name="as_1d"),
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((0, 3, 5, 5),), ((2, 3, 5, 5),)],
           args=([0, 2],), name="empty"),
    OpCase("adaptive_max_pool2d.default", FLOAT, [((2, 3, 7, 9),), ((3, 7, 9),)],
           args=([4, 5],), name="smaller"),
    OpCase("adaptive_max_pool2d.default", ("Float", "Double"), [((1, 2, 7, 9),)],
           args=([10, 13],), name="bigger"),
    OpCase("adaptive_max_pool2d.default", ("Float", "Half"), [((2, 7, 9),)], args=([7, 9],),
           name="equal"),
    OpCase("adaptive_max_pool2d.default", ("Float",), [((2, 3, 8, 9),)], args=([4, 3],),
           name="divides"),
    OpCase("adaptive_max_pool2d.default", ("Float", "BFloat16"), [((2, 3, 5, 6),)],
           args=([1, 1],), name="one"),
    OpCase("adaptive_max_pool2d.default", ("Float",), [((1, 3, 5, 9),)], args=([2, 12],),
           name="mixed"),
    OpCase("adaptive_max_pool2d.default", ("Float",), [((2, 3, 1, 11),)], args=([1, 4],),
           name="as_1d"),
    OpCase("adaptive_max_pool2d.default", ("Float",), [((0, 3, 5, 5),), ((2, 3, 5, 5),)],
           args=([0, 2],), name="empty"),

    # Resampling: F.interpolate exports as these .vec ops, with output_size or with
    # scale_factors. Given scale factors, torch maps output o to input floor(o / scale),
    # not floor(o * in / out): 5 rows at scale 1.7 give 8, and output row 5 reads row 2,
    # not 3; 9 columns at scale 0.4 give 3, which read columns 0, 2, 5, not 0, 3, 6.
    OpCase("upsample_nearest2d.vec", ("Byte",) + FLOAT, [((2, 3, 5, 7),), ((1, 1, 4, 4),)],
           args=([10, 13], None), name="size"),
    OpCase("upsample_nearest2d.vec", ("Float",), [((2, 3, 5, 7),)], args=([5, 7], None),
           name="same_size"),
    OpCase("upsample_nearest2d.vec", ("Float", "Half"), [((2, 3, 5, 7),)],
           args=([10, 14], None), name="double_size"),
    OpCase("upsample_nearest2d.vec", ("Float",), [((2, 3, 7, 9),)], args=([3, 4], None),
           name="smaller"),
    OpCase("upsample_nearest2d.vec", ("Float", "Byte"), [((2, 3, 5, 7),), ((1, 2, 3, 1),)],
           args=(None, [2.0, 2.0]), name="scale2"),
    OpCase("upsample_nearest2d.vec", ("Float", "Double"), [((2, 3, 5, 7),), ((1, 1, 9, 11),)],
           args=(None, [1.5, 1.5]), name="scale1_5"),
    OpCase("upsample_nearest2d.vec", ("Float",), [((2, 3, 7, 9),), ((1, 1, 2, 3),)],
           args=(None, [0.5, 0.5]), name="scale0_5"),
    OpCase("upsample_nearest2d.vec", ("Float", "BFloat16"), [((2, 3, 5, 9),)],
           args=(None, [1.7, 0.4]), name="scale_mixed"),
    OpCase("upsample_nearest2d.vec", ("Float",), [((0, 3, 4, 4),)], args=([6, 6], None),
           name="empty_batch"),
    # Arguments: output_size, align_corners, scale_factors.
    *[OpCase("upsample_bilinear2d.vec", dtypes, shapes, args=(size, align, scales),
             name=f"{name}_{'align' if align else 'centres'}")
      for align in (False, True)
      for name, size, scales, dtypes, shapes in [
          ("size", [10, 13], None, FLOAT, [((2, 3, 5, 7),), ((1, 1, 4, 4),)]),
          ("smaller", [3, 2], None, ("Float", "Double"), [((2, 3, 5, 7),), ((1, 1, 4, 4),)]),
          ("same_size", [5, 7], None, ("Float",), [((2, 3, 5, 7),)]),
          ("scale2", None, [2.0, 2.0], ("Float", "Half"), [((2, 3, 5, 7),), ((1, 1, 4, 4),)]),
          ("scale1_5", None, [1.5, 1.5], ("Float", "Double"),
           [((2, 3, 5, 7),), ((1, 1, 9, 11),)]),
          ("scale0_5", None, [0.5, 0.5], ("Float", "BFloat16"),
           [((2, 3, 7, 9),), ((1, 1, 4, 4),)]),
          ("scale_mixed", None, [1.7, 0.4], ("Float",), [((2, 3, 5, 9),)]),
          ("one", [1, 1], None, ("Float",), [((2, 3, 5, 7),)])]],
    OpCase("upsample_bilinear2d.vec", ("Float",), [((2, 3, 1, 1),), ((1, 2, 1, 5),)],
           args=([4, 3], False, None), name="from_one_pixel"),
    OpCase("upsample_bilinear2d.vec", ("Float",), [((0, 3, 4, 4),)],
           args=([6, 6], True, None), name="empty_batch"),

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

    # --- what the XNNPACK partitioner delegates whole ---
    # Most cases above have a call XNNPACK leaves to the kernels (a 0-d tensor, mixed
    # dtypes, an input weight), so test_ops.py skips them for it; these have only calls
    # it claims (Float, 1 to 6 dims, constant weights), for every op it claims.
    *[OpCase(f"{op}.Tensor", ("Float",), XNNPACK_BINARY, name="xnnpack")
      for op in ("add", "sub", "mul")],
    OpCase("div.Tensor", ("Float",), XNNPACK_BINARY, domain="nonzero", name="xnnpack"),
    OpCase("maximum.default", ("Float",), XNNPACK_BINARY),
    OpCase("minimum.default", ("Float",), XNNPACK_BINARY),
    OpCase("add.Scalar", ("Float",), XNNPACK_UNARY, args=(2.5,), name="xnnpack"),
    OpCase("sub.Scalar", ("Float",), XNNPACK_UNARY, args=(0.75,), name="xnnpack"),
    OpCase("mul.Scalar", ("Float",), XNNPACK_UNARY, args=(-0.5,), name="xnnpack"),
    OpCase("div.Scalar", ("Float",), XNNPACK_UNARY, args=(-2.5,), name="xnnpack"),
    *[OpCase(f"{op}.default", ("Float",), XNNPACK_UNARY, name="xnnpack")
      for op in ("relu", "neg", "abs", "sigmoid")],
    OpCase("sqrt.default", ("Float",), XNNPACK_UNARY, domain="positive", name="xnnpack"),
    OpCase("clamp.default", ("Float",), XNNPACK_UNARY, args=(-0.3, 0.4)),
    OpCase("clamp.default", ("Float",), [((2, 3),)], args=(-0.3,), name="min"),
    OpCase("clamp.default", ("Float",), [((2, 3),)], kwargs={"max": 0.4}, name="max"),
    OpCase("hardtanh.default", ("Float",), XNNPACK_UNARY),
    OpCase("hardtanh.default", ("Float",), [((2, 3),)], args=(-0.5, 2.0), name="bounds"),
    OpCase("hardswish.default", ("Float",), XNNPACK_UNARY),
    OpCase("_softmax.default", ("Float",), [((2, 5),), ((7,),), ((2, 3, 5),),
                                            (In((5, 2), perm=(1, 0)),)],
           args=(-1, False), name="xnnpack"),
    # Copies and reshapes after compute (XNNPACK delegates neither alone).
    OpCase("clone.default", ("Float",), [(Computed((2, 3)),), (Computed((2, 1, 3, 1, 2, 2)),)],
           name="computed"),
    OpCase("view_copy.default", ("Float",), [(Computed((3, 4)),)], args=([4, 3],),
           name="computed"),
    # The exporter turns _unsafe_view into view_copy: its case runs that on XNNPACK.
    OpCase("_unsafe_view.default", ("Float",), [(Computed((3, 4)),)], args=([2, 6],)),
    # Linear layers: torch decomposes them into addmm or mm of the transposed constant
    # weight, with reshapes around them for 3-d inputs.
    OpCase("linear.default", ("Float",), [((3, 6), Constant((5, 6)), Constant((5,))),
                                          ((2, 3, 6), Constant((5, 6)), Constant((5,))),
                                          ((4, 6), Constant((5, 6)))]),
    OpCase("addmm.default", ("Float",), [(Constant((3,)), (2, 4), Constant((4, 3))),
                                         (Constant((200,)), (3, 70), Constant((70, 200)))],
           name="constant_weights"),
    OpCase("mm.default", ("Float",), [((4, 6), Constant((6, 7)))], name="constant_weight"),
    # Convolutions: constant weights and biases, as in a model (batch norms arrive folded
    # into them). XNNPACK runs them channels-last, so the delegate transposes the input
    # and the result; the weights are repacked at export. Padding past the kernel, stride,
    # dilation, no bias, 1x1, one input channel.
    OpCase("convolution.default", ("Float",),
           [((2, 3, 7, 9), Constant((4, 3, 3, 3)), Constant((4,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 5, 11, 10), Constant((8, 5, 5, 5)), Arg(None), Arg([2, 2]), Arg([2, 2]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 3, 12, 13), Constant((6, 3, 3, 2)), Constant((6,)), Arg([2, 1]), Arg([0, 3]),
             Arg([2, 3]), Arg(False), Arg([0, 0]), Arg(1)),
            ((2, 16, 5, 7), Constant((12, 16, 1, 1)), Constant((12,)), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 2, 3, 4), Constant((4, 2, 2, 2)), Constant((4,)), Arg([1, 1]), Arg([3, 3]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 1, 6, 5), Constant((3, 1, 3, 3)), Constant((3,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 2, 6, 7), Constant((4, 2, 3, 3)), Constant((4,)), Arg([2]), Arg([1]), Arg([1]),
             Arg(False), Arg([0]), Arg(1))],
           name="xnnpack"),
    # Groups, depthwise (groups = input channels) with channel multipliers, stride and
    # dilation.
    OpCase("convolution.default", ("Float",),
           [((2, 4, 6, 7), Constant((8, 2, 3, 3)), Constant((8,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(2)),
            ((1, 6, 5, 5), Constant((3, 2, 3, 3)), Arg(None), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(3)),
            ((1, 8, 9, 9), Constant((8, 1, 3, 3)), Constant((8,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(8)),
            ((2, 6, 10, 11), Constant((6, 1, 3, 3)), Arg(None), Arg([2, 2]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(6)),
            ((1, 4, 7, 8), Constant((8, 1, 5, 5)), Constant((8,)), Arg([1, 1]), Arg([2, 2]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(4)),
            ((1, 3, 6, 6), Constant((12, 1, 3, 3)), Constant((12,)), Arg([2, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(3)),
            ((1, 4, 12, 12), Constant((4, 1, 3, 3)), Arg(None), Arg([1, 1]), Arg([2, 2]),
             Arg([2, 2]), Arg(False), Arg([0, 0]), Arg(4)),
            ((1, 32, 7, 7), Constant((32, 1, 3, 3)), Constant((32,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(32))],
           name="xnnpack_groups"),
    # 1-d convolutions run as 2-d ones of height 1.
    OpCase("convolution.default", ("Float",),
           [((2, 4, 17), Constant((6, 4, 3)), Constant((6,)), Arg([1]), Arg([1]), Arg([1]),
             Arg(False), Arg([0]), Arg(1)),
            ((1, 4, 20), Constant((8, 2, 3)), Arg(None), Arg([2]), Arg([2]), Arg([2]),
             Arg(False), Arg([0]), Arg(2)),
            ((1, 5, 9), Constant((5, 1, 4)), Constant((5,)), Arg([1]), Arg([0]), Arg([1]),
             Arg(False), Arg([0]), Arg(5)),
            ((3, 8, 5), Constant((4, 8, 1)), Constant((4,)), Arg([1]), Arg([0]), Arg([1]),
             Arg(False), Arg([0]), Arg(1))],
           name="xnnpack_1d"),
    # Transposed convolutions run as XNNPACK deconvolutions: output_padding below the
    # stride (XNNPACK's adjustment), groups, dilation, 1-d.
    OpCase("convolution.default", ("Float",),
           [((1, 4, 5, 6), Constant((4, 3, 3, 3)), Constant((3,)), Arg([2, 2]), Arg([1, 1]),
             Arg([1, 1]), Arg(True), Arg([1, 1]), Arg(1)),
            ((2, 4, 4, 5), Constant((4, 3, 3, 2)), Arg(None), Arg([2, 3]), Arg([0, 1]),
             Arg([2, 1]), Arg(True), Arg([1, 2]), Arg(2)),
            ((1, 3, 4, 4), Constant((3, 5, 1, 1)), Constant((5,)), Arg([1, 1]), Arg([0, 0]),
             Arg([1, 1]), Arg(True), Arg([0, 0]), Arg(1)),
            ((1, 2, 5, 5), Constant((2, 3, 3, 3)), Constant((3,)), Arg([1, 1]), Arg([2, 2]),
             Arg([1, 1]), Arg(True), Arg([0, 0]), Arg(1)),
            ((1, 2, 3, 3), Constant((2, 2, 3, 3)), Arg(None), Arg([2, 2]), Arg([0, 0]),
             Arg([2, 2]), Arg(True), Arg([1, 1]), Arg(1)),
            ((1, 8, 4, 4), Constant((8, 1, 4, 4)), Constant((8,)), Arg([2, 2]), Arg([1, 1]),
             Arg([1, 1]), Arg(True), Arg([0, 0]), Arg(8)),
            ((2, 3, 7), Constant((3, 4, 4)), Constant((4,)), Arg([3]), Arg([1]), Arg([1]),
             Arg(True), Arg([2]), Arg(1)),
            ((1, 4, 6), Constant((4, 2, 3)), Arg(None), Arg([2]), Arg([0]), Arg([1]),
             Arg(True), Arg([0]), Arg(4))],
           name="xnnpack_transposed"),
    # A convolution and its activation share one delegate (ReLU, ReLU6 as MobileNet has).
    OpCase("convolution.default", ("Float",),
           [((1, 3, 9, 9), Constant((8, 3, 3, 3)), Constant((8,)), Arg([2, 2]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 8, 5, 5), Constant((8, 1, 3, 3)), Constant((8,)), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(8))],
           then=("relu",), name="xnnpack_relu"),
    OpCase("convolution.default", ("Float",),
           [((1, 3, 9, 9), Constant((8, 3, 3, 3)), Constant((8,)), Arg([2, 2]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
            ((1, 8, 5, 5), Constant((8, 1, 3, 3)), Arg(None), Arg([1, 1]), Arg([1, 1]),
             Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(8))],
           then=("hardtanh", 0.0, 6.0), name="xnnpack_relu6"),
    # Max pooling whose indices nobody reads (max_pool2d, as nn.MaxPool2d calls it).
    # Arguments: kernel_size, stride, padding, dilation, ceil_mode. ceil_mode's windows off
    # the bottom/right edge become extra padding; dilation only without padding (XNNPACK
    # 2022 pads with border cells).
    OpCase("max_pool2d.default", ("Float",), [((2, 3, 7, 9),), ((1, 16, 16, 16),)],
           args=([3, 3], [2, 2], [1, 1]), name="xnnpack"),
    OpCase("max_pool2d.default", ("Float",), [((2, 3, 7, 9),)], args=([2, 2],),
           name="xnnpack_defaults"),
    OpCase("max_pool2d.default", ("Float",), [((2, 2, 8, 10),), ((1, 2, 11, 8),)],
           args=([3, 3], [2, 2], [1, 1], [1, 1], True), name="xnnpack_ceil"),
    OpCase("max_pool2d.default", ("Float",), [((1, 3, 9, 10),)], args=([3, 2], [1, 2], [0, 0],
                                                                      [2, 3]),
           name="xnnpack_dilation"),
    OpCase("max_pool2d.default", ("Float",), [((2, 3, 7, 9),)], args=([2, 3], [3, 1], [1, 1]),
           name="xnnpack_uneven"),
    # Average pooling, where XNNPACK's divisor (the window's cells inside the input) is
    # torch's: no padding, or count_include_pad=False. Arguments: kernel_size, stride,
    # padding, ceil_mode, count_include_pad.
    OpCase("avg_pool2d.default", ("Float",), [((2, 3, 7, 9),), ((1, 16, 8, 8),)],
           args=([3, 3], [2, 2], [1, 1], False, False), name="xnnpack"),
    OpCase("avg_pool2d.default", ("Float",), [((2, 3, 7, 9),)], args=([2, 2],),
           name="xnnpack_defaults"),
    OpCase("avg_pool2d.default", ("Float",), [((2, 3, 7, 9),)], args=([2, 2], [2, 2], [0, 0],
                                                                      True, True),
           name="xnnpack_ceil"),
    OpCase("avg_pool2d.default", ("Float",), [((2, 2, 8, 10),), ((1, 2, 11, 8),)],
           args=([3, 3], [2, 2], [1, 1], True, False), name="xnnpack_ceil_exclude_pad"),
    OpCase("avg_pool2d.default", ("Float",), [((2, 3, 7, 9),)],
           args=([3, 2], [1, 3], [1, 0], False, False), name="xnnpack_uneven"),
    # Global average pooling: adaptive to 1x1, or the mean over H and W (how torch
    # exports nn.AdaptiveAvgPool2d(1)); adaptive pooling whose windows are all alike.
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((2, 8, 5, 7),)], args=([1, 1],),
           name="xnnpack_global"),
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((1, 3, 8, 9),), ((2, 4, 12, 6),)],
           args=([4, 3],), name="xnnpack_divides"),
    OpCase("mean.dim", ("Float",), [((2, 8, 5, 7),), ((1, 3, 1, 1),)], args=([-1, -2], True),
           name="xnnpack_global"),
    OpCase("mean.dim", ("Float",), [((2, 8, 5, 7),)], args=([2, 3],), name="xnnpack_flat"),
    # Elementwise ops on pooled (channels-last) tensors: an input of the same rank (the
    # delegate transposes it), per-channel and single-channel operands XNNPACK can view
    # channels-last without a transpose.
    OpCase("add.Tensor", ("Float",),
           [(Computed((2, 3, 8, 8), by="max_pool2d", args=([2, 2],)), (2, 3, 4, 4)),
            (Computed((2, 3, 8, 8), by="max_pool2d", args=([2, 2],)), Constant((3, 1, 1))),
            (Computed((2, 3, 8, 8), by="avg_pool2d", args=([2, 2],)), (2, 1, 4, 4)),
            (Computed((1, 5, 6, 6), by="avg_pool2d", args=([3, 3],)), (1, 5, 1, 1))],
           name="xnnpack_channels_last"),
    OpCase("mul.Tensor", ("Float",),
           [(Computed((2, 3, 8, 8), by="max_pool2d", args=([2, 2],)), (3, 1, 1)),
            (Computed((2, 3, 8, 8), by="max_pool2d", args=([2, 2],)), Constant((1, 4))),
            (Constant((2, 1, 1)), Computed((1, 2, 6, 6), by="avg_pool2d", args=([2, 2],)))],
           name="xnnpack_channels_last"),
    OpCase("leaky_relu.default", ("Float",), XNNPACK_UNARY, args=(0.2,), name="xnnpack"),
    OpCase("leaky_relu.default", ("Float",), [((2, 3),)], args=(-1.5,),
           name="xnnpack_negative_slope"),
    OpCase("elu.default", ("Float",), XNNPACK_UNARY, name="xnnpack"),
    OpCase("elu.default", ("Float",), [((2, 3),)], args=(0.5,), name="xnnpack_alpha"),
    # Squeezes and unsqueezes after compute (XNNPACK delegates neither alone).
    OpCase("unsqueeze_copy.default", ("Float",), [(Computed((2, 3)),)], args=(1,),
           name="computed"),
    OpCase("squeeze_copy.dims", ("Float",), [(Computed((2, 1, 3, 1)),)], args=([1, 3],),
           name="computed"),
]


def _qlinear(m: tuple, n: int, k: int, bits: int, groups: int, bias: bool = True) -> tuple:
    """One call of tailor_quant::linear: input m + (k,), n outputs, weights packed in
    blocks of 8 rows (int8: 32 bytes per 4 inputs; int4: per 8), scales [groups, n],
    bias [n] or None (kernels/quantized/util/qlinear_layout.h)."""
    blocks = -(-n // 8)
    weight = (Constant((blocks, -(-k // 4) * 32), "Char") if bits == 8
              else Constant((blocks, k * 4), "Byte"))
    return (In((*m, k)), weight, Constant((groups, n), "Float", domain="positive"),
            Constant((n,), "Float") if bias else None)


# The quantized library (kernels/quantized/, manifests/kernels/quantized.yaml). Linear:
# 1 to 9 rows cross the 4-row tiles of util/qlinear.h, 3, 5, 13 and 17 outputs partial
# blocks of 8, k = 70 and 37 partial quads of inputs, several groups per row the
# per-group scales; its LEVELED runs test the plain C++ kernels on the same references.
QUANTIZED_CASES = [
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 8, 64, 8, 1), _qlinear((5,), 3, 70, 8, 1),
            _qlinear((2, 3), 17, 64, 8, 1, bias=False), _qlinear((9,), 13, 256, 8, 1)],
           args=(8, True), name="8da8w", atol=1e-4, rtol=1e-5),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 8, 64, 4, 2), _qlinear((6,), 5, 128, 4, 4),
            _qlinear((2, 3), 3, 96, 4, 1, bias=False)],
           args=(4, True), name="8da4w", atol=1e-4, rtol=1e-5),
    # The paths of util/qlinear.h by rows: one row streams whole blocks through the decode
    # kernels (24, 40 outputs; 41 ends in a general-path block); 4 rows and more take the
    # int4 prefill GEMM in block pairs (35 outputs: a lone partial block last), 8-row
    # tiles and the rest (19 rows), 33 groups unpacked in two parts (k = 1056). atol: its
    # outputs reach 400, and torch sums 1056 products in another order (every level,
    # the general path included, lands within 2e-4 of eager, 5e-7 of the largest output).
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 24, 96, 4, 3), _qlinear((1,), 41, 64, 4, 2),
            _qlinear((19,), 35, 1056, 4, 33), _qlinear((5,), 16, 64, 4, 1, bias=False)],
           args=(4, True), name="8da4w_decode_prefill", atol=1e-3, rtol=1e-5),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 40, 70, 8, 1), _qlinear((1,), 41, 130, 8, 1, bias=False)],
           args=(8, True), name="8da8w_decode", atol=1e-4, rtol=1e-5),
    # 4 rows and more take the int8 prefill GEMM: 19 rows cross the 8- and 4-row tiles,
    # k = 1300 unpacks in two spans (the last short), 35 and 9 outputs end in a lone
    # partial block; on 2 threads, each takes whole block pairs.
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((19,), 35, 1300, 8, 1), _qlinear((7,), 9, 37, 8, 1, bias=False),
            _qlinear((2, 5), 24, 130, 8, 1)],
           args=(8, True), name="8da8w_prefill", atol=1e-3, rtol=1e-5),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((19,), 35, 1300, 8, 1), _qlinear((13,), 41, 256, 8, 1, bias=False)],
           args=(8, True), name="8da8w_prefill_threads", atol=1e-3, rtol=1e-5, threads=2),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((19,), 35, 1056, 4, 33), _qlinear((13,), 41, 256, 4, 2, bias=False)],
           args=(4, True), name="8da4w_prefill_threads", atol=1e-3, rtol=1e-5, threads=2),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 8, 64, 8, 1), _qlinear((7,), 3, 37, 8, 1),
            _qlinear((2, 2), 5, 64, 8, 1, bias=False)],
           args=(8, False), name="int8_weight", atol=1e-4, rtol=1e-5),
    # Lookups in a linear's packed table (a tied embedding): 13 rows end in a partial
    # block of 8, 70 inputs in a partial quad (int8); two groups per row (int4).
    OpCase("tailor_quant::embedding.default", ("Float",),
           [(*_qlinear((), 13, 70, 8, 1)[1:3], Arg(8), Arg(70), In((2, 3), "Long", domain="positive")),
            (*_qlinear((), 16, 64, 8, 1)[1:3], Arg(8), Arg(64), In((5,), "Int", domain="positive"))],
           name="int8"),
    OpCase("tailor_quant::embedding.default", ("Float",),
           [(*_qlinear((), 13, 64, 4, 2)[1:3], Arg(4), Arg(64), In((2, 3), "Long", domain="positive")),
            (*_qlinear((), 9, 96, 4, 1)[1:3], Arg(4), Arg(96), In((4,), "Long", domain="positive"))],
           name="int4"),
    OpCase("quantized_decomposed::embedding_byte.default", ("Float",),
           [(Constant((10, 4), "Char"), Constant((10,), "Float", domain="positive"), None,
             Arg(-127), Arg(127), In((2, 3), "Long", domain="positive")),
            (Constant((10, 4), "Char"), Constant((10,), "Float", domain="positive"),
             Constant((10,), "Float"), Arg(-127), Arg(127), In((5,), "Int", domain="positive"))]),
    OpCase("quantized_decomposed::quantize_per_tensor.default", ("Float",),
           [((2, 3),), ((0, 4),), ((40,),)], args=(0.05, 3, -128, 127, Dtype("Char"))),
    OpCase("quantized_decomposed::quantize_per_tensor.default", ("Float",), [((4, 5),)],
           args=(0.02, 128, 0, 255, Dtype("Byte")), name="uint8"),
    OpCase("quantized_decomposed::dequantize_per_tensor.default", ("Char", "Byte"),
           [((2, 3),), ((7,),)], args=(0.25, 2, -128, 255, DTYPE)),
    OpCase("quantized_decomposed::dequantize_per_channel.default", ("Char",),
           [((3, 4), Constant((4,), "Float", domain="positive"), In((4,), "Long")),
            ((2, 3, 2), Constant((3,), "Float", domain="positive"), None)],
           args=(1, -128, 127, DTYPE)),
    OpCase("quantized_decomposed::choose_qparams.tensor", ("Float",),
           [((4, 5),), ((3,),)], args=(-128, 127, 1e-5, Dtype("Char"))),
]
CASES += QUANTIZED_CASES


# --- issue 29: creation, random and batch norm ---
# ones, zeros, their _like forms and fill.Scalar export as full / full_like, fill.Tensor as
# copy, empty_like as empty_permuted: their cases run those kernels. Random ops draw from
# Tailor's generator (README.md, Random operators), so their outputs are checked for what
# a draw must satisfy, not against eager's numbers; the first call of each fills more
# than one parallel block (16,384 elements) so tests/ops/test_ops.py's thread check splits it.
# Batch norm calls with running statistics: input, weight, bias, running_mean,
# running_var (positive); 2-D to 5-D, weight or bias absent, one value per channel.
_BATCH_NORM_STATS = [
    ((4, 3, 5, 5), (3,), (3,), (3,), In((3,), domain="positive")),
    ((2, 4, 7), None, None, (4,), In((4,), domain="positive")),
    ((5, 2), (2,), None, (2,), In((2,), domain="positive")),
    ((2, 3, 2, 2, 2), None, (3,), (3,), In((3,), domain="positive")),
    ((1, 3, 1, 2), (3,), (3,), (3,), In((3,), domain="positive"))]

CREATION_CASES = [
    OpCase("ones.default", ALL, [()], args=([2, 3],), kwargs={"dtype": DTYPE}),
    OpCase("zeros.default", ALL, [()], args=([0, 4],), kwargs={"dtype": DTYPE}),
    OpCase("ones_like.default", ALL, [((2, 3),), ((),)]),
    OpCase("zeros_like.default", ("Float", "Long", "Bool"), [((3, 1, 2),), ((0,),)]),
    OpCase("fill.Scalar", ALL, [((2, 3),), ((),), ((0, 4),)], args=(3,)),
    OpCase("fill.Scalar", FLOAT, [((2, 3),)], args=(-1.5,), name="fraction"),
    # The value: a 0-d tensor of the same or another dtype (converted as torch converts).
    OpCase("fill.Tensor", ALL, [((2, 3), ()), ((), ()), ((0, 2), ())]),
    OpCase("fill.Tensor", ("Float", "Int"), [((2, 3), In((), "Double")),
                                             ((4,), In((), "Bool"))], name="mixed"),
    # copy (the functional copy_): src broadcast to self's shape, converted.
    OpCase("copy.default", ALL, [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1, 2), ()),
                                 ((0, 3), (3,)), (In((3, 2), perm=(1, 0)), (2, 3))]),
    OpCase("copy.default", ("Float",), [((2, 3), In((2, 3), "Double")),
                                        ((5,), In((5,), "Half"))], domain="edges",
           name="convert"),
    OpCase("copy.default", ("Short",), [((2, 3), In((2, 3), "Long")),
                                        ((5,), In((5,), "Bool"))], domain="huge",
           name="wrap"),
    OpCase("empty.memory_format", ALL, [()], args=([2, 3],), kwargs={"dtype": DTYPE},
           check="shape"),
    OpCase("empty.memory_format", ("Float",), [()], args=([0, 5],), kwargs={"dtype": DTYPE},
           check="shape", name="empty"),
    OpCase("empty_like.default", ALL, [((2, 3),), ((),), ((4, 0),)], check="shape"),
    OpCase("rand.default", FLOAT, [(Arg([160, 128]),), (Arg([7, 3]),), (Arg([0, 3]),),
                                   (Arg([]),)], kwargs={"dtype": DTYPE}, check="uniform"),
    OpCase("randn.default", FLOAT, [(Arg([160, 128]),), (Arg([7, 3]),), (Arg([0, 3]),),
                                    (Arg([]),)], kwargs={"dtype": DTYPE}, check="normal"),
    OpCase("rand_like.default", FLOAT, [((160, 128),), ((2, 3),), ((0,),)], check="uniform"),
    OpCase("randn_like.default", FLOAT, [((160, 128),), ((2, 3),), ((0,),)], check="normal"),
    # Dropout in training (train True or None): the mask's fraction, the scaling exact.
    # No empty input: eager returns a mask of the input's dtype for one, where torch.export
    # (and Tailor) have Bool.
    OpCase("native_dropout.default", FLOAT, [((160, 128),), ((2, 3),), ((),)],
           args=(0.3, True), check="dropout"),
    OpCase("native_dropout.default", ("Float",), [((64, 64),)], args=(0.9, None),
           check="dropout", name="train_none"),
    OpCase("native_dropout.default", ("Float", "Half"), [((40, 30),)], args=(0.5, True),
           domain="specials", check="dropout", name="specials"),
    # No draw decides these: compared with eager (p = 0 keeps all, p = 1 drops all, NaN
    # and infinities included; eval passes the input and an all-true mask).
    OpCase("native_dropout.default", ("Float", "Double"), [((5, 7),)], args=(0.0, True),
           domain="specials", name="keep_all"),
    OpCase("native_dropout.default", ("Float",), [((5, 7),)], args=(1.0, True),
           domain="specials", name="drop_all"),
    OpCase("native_dropout.default", FLOAT, [((2, 3),), ((),)], args=(0.4, False),
           name="eval"),
    # Training-mode batch norm without running statistics (F.batch_norm(x, None, None,
    # training=True)): per-channel statistics, weight and bias or none, one value per
    # channel (variance 0: invstd 1/sqrt(eps)).
    OpCase("_native_batch_norm_legit.no_stats", ("Float", "Double"),
           [((4, 3, 5, 5), (3,), (3,)), ((2, 4, 7), None, None), ((5, 2), (2,), None),
            ((1, 3, 1, 1), (3,), (3,)), ((2, 3, 2, 2, 2), None, (3,))],
           args=(True, 0.1, 1e-5), atol=1e-5, rtol=1e-4),
    # With running statistics (what torch.export emits for F.batch_norm(x, mean, var,
    # training=True)): lowered to _native_batch_norm_legit.out, which updates them in
    # place; outputs 3 and 4 are the new mean and (unbiased) variance. Eval mode normalizes
    # with them and saves no statistics.
    OpCase("_native_batch_norm_legit_functional.default", ("Float", "Double"),
           _BATCH_NORM_STATS, args=(True, 0.1, 1e-5), atol=1e-5, rtol=1e-4),
    OpCase("_native_batch_norm_legit_functional.default", ("Float",), _BATCH_NORM_STATS[:2],
           args=(True, 0.75, 1e-3), atol=1e-5, rtol=1e-4, name="momentum"),
    OpCase("_native_batch_norm_legit_functional.default", ("Float", "Double"),
           _BATCH_NORM_STATS, args=(False, 0.1, 1e-5), atol=1e-5, rtol=1e-4, name="eval"),
]
CASES += CREATION_CASES

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

SHAPE_CASES = [
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
CASES += SHAPE_CASES


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

ISSUE29_REDUCTION_CASES = [
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
CASES += ISSUE29_REDUCTION_CASES
