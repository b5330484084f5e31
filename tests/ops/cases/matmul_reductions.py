"""Layout ops, matrix products (the GEMMs' edges), vector kernels, reductions and norms."""

from tests.ops.cases.spec import Dtype, DTYPE, In, Constant, Arg, OpCase
from tests.ops.cases.groups import ALL, FLOAT, GEMM_ODD, INT, ODD_BINARY, ODD_ROWS, REALH

CASES = [
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
    # The optimized mean over trailing dims (rows of vectors): a squeeze-and-excitation
    # block's mean over H x W (keepdim), rows of 1, 7 and 65, a kept dim of 1 after the
    # reduced ones, and an empty reduction (NaN); over the threads in test_kernel_threads.
    OpCase("mean.dim", ("Float",), [((2, 5, 7, 9),)], args=([2, 3], True), name="trailing"),
    OpCase("mean.dim", ("Float",), [((4, 1),), ((3, 7),), ((2, 65),), ((3, 0),)], args=([-1],),
           name="rows"),
    OpCase("mean.dim", ("Float",), [((3, 65, 1),)], args=([1],), name="kept_one_after"),
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
]
