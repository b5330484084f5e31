"""How an op case is spelled: OpCase and the inputs of its calls (In, Constant, Given,
Computed, Tensors, Arg, Dtype)."""

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
                                               # (counts around each bit width),
                                               # int4_blocks_<S> (packed int4 weights in
                                               # groups of S inputs with their scales)
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
