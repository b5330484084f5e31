"""Dtype groups and call shapes the case families share."""

from tests.ops.cases.spec import In

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
# either side, a permuted input, a column (an element per row: a squeeze-excitation's
# [1, C, 1, 1] scale) on either side and against a row, and one broadcast that is none
# of those.
ODD_BINARY = [((129,), (129,)), ((7, 65), (65,)), ((65,), (7, 65)), ((1,), (3, 129)),
              ((2, 7, 129), ()), ((1, 7, 65), (7, 65)), ((3, 65, 1), (65, 7)),
              (In((65, 7), perm=(1, 0)), (7, 65)), ((1, 7, 9, 9), (1, 7, 1, 1)),
              ((3, 1), (3, 65)), ((7, 1), (1, 65))]


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
