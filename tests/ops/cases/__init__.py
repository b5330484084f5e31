"""The op test cases: one declarative list, run by tests/ops/test_ops.py against every
kernel library and XNNPACK (see tests/ops/harness/ for how a case becomes a program, a build and
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

The spelling of a case lives in spec.py, the dtype groups and call shapes the families
share in groups.py, and the cases themselves in one module per family, whose CASES this
package joins in a fixed order (the order is the test ids' order).

Add cases to the family module they belong to; adding a kernel means adding its cases:
tests/ops/test_ops.py fails for a manifest op no case exercises, and for an op the
XNNPACK partitioner claims that no case runs on XNNPACK.
"""

from tests.ops.cases import (activations, convolution, creation, elementwise, indexing,
                             matmul_reductions, pooling, portable_reductions, quantized,
                             shape_copy, xnnpack)
from tests.ops.cases.groups import (ALL, BINARY, COMPARISONS, FLOAT, GEMM_ODD, INT,
                                    INT_PAIR_DOMAINS, INT_PAIRS, MIXED, ODD_BINARY, ODD_ROWS,
                                    REAL, REALH, SPECIAL_PAIRS, UNARY, XNNPACK_BINARY,
                                    XNNPACK_UNARY, each_dtype, others)
from tests.ops.cases.shape_copy import INF
from tests.ops.cases.spec import (DTYPE, Arg, Computed, Constant, Dtype, Given, In, OpCase,
                                  Tensors)

QUANTIZED_CASES = quantized.CASES
CREATION_CASES = creation.CASES
SHAPE_CASES = shape_copy.CASES
ISSUE29_REDUCTION_CASES = portable_reductions.CASES

# Every case, in the order the families were written (kept: it orders the test ids).
CASES = [*elementwise.CASES, *matmul_reductions.CASES, *indexing.CASES, *convolution.CASES,
         *pooling.CASES, *activations.CASES, *xnnpack.CASES, *QUANTIZED_CASES,
         *CREATION_CASES, *SHAPE_CASES, *ISSUE29_REDUCTION_CASES]
