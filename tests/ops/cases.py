"""The op test cases: one declarative list, run by tests/ops/test_ops.py against every
kernel library (see harness.py for how a case becomes a program, a build and a check).

A case names the ATen overload it calls (`"add.Tensor"` calls torch.ops.aten.add.Tensor),
the dtypes to run it in (one program per dtype), and the calls: each item of `shapes` is
one call of the op on fresh inputs. An input is a shape tuple (a tensor of the case's
dtype) or an `In` (its own dtype, a permute before the op, a value domain). Non-tensor
arguments follow the tensors (`args`, `kwargs`); `DTYPE` in them stands for the case's
dtype as a torch.dtype, `Dtype("Long")` for a fixed one.

Add cases by appending to CASES (or to your section of it); adding a kernel means adding
its cases: tests/ops/test_ops.py fails for a manifest op no case exercises.
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


@dataclass(frozen=True, eq=False)
class OpCase:
    op: str                                    # "add.Tensor": torch.ops.aten.add.Tensor
    dtypes: tuple                              # "Float", "Int", ...: one program each
    shapes: list                               # one call per item: a tuple of inputs
    args: tuple = ()                           # non-tensor arguments after the tensors
    kwargs: dict = field(default_factory=dict)
    name: str = ""                             # tells apart cases of one op: "alpha"
    domain: str = "any"                        # input values: any, positive, nonzero, small
    atol: float | None = None                  # None: the harness default per dtype
    rtol: float | None = None

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


CASES = [
    # --- existing kernels ---
    OpCase("addmm.default", ("Float",), [((3,), (2, 4), (4, 3)), ((2, 3), (2, 4), (4, 3)),
                                         ((1, 3), (2, 4), (4, 3)), ((2, 1), (2, 4), (4, 3))]),
    OpCase("addmm.default", ("Float",), [((3,), (2, 4), (4, 3))],
           kwargs={"beta": 0.5, "alpha": 2.0}, name="beta_alpha"),
    OpCase("addmm.default", ("Double", "Half", "BFloat16", "Int", "Long"),
           [((3,), (2, 4), (4, 3))], name="dtypes", domain="small"),
    OpCase("relu.default", REALH, [((2, 3),), ((),), ((0, 4),), (In((3, 2), perm=(1, 0)),)]),
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


    # --- shapes, reductions, nn ---
]
