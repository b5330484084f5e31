"""Issue 29: creation, random ops and batch norm."""

from tests.ops.cases.spec import DTYPE, In, Arg, OpCase
from tests.ops.cases.groups import ALL, FLOAT

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

CASES = [
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
