"""The decomposition table torch.export's programs are lowered with: core ATen's, less the
operators Tailor keeps whole.

torch's core-ATen table rewrites some operators into several others that each write an
intermediate tensor: a reflection pad becomes arange, abs, sub and an index gather;
logit becomes seven elementwise ops; roll an index_select over computed positions. Each
operator of KEPT_WHOLE has a kernel of its own (manifests/kernels/portable.yaml) that
makes one pass over its input and writes only its output, so it stays one call.

floor_divide and masked_fill decompose to one op too (div with rounding_mode="floor";
where with a constant): they are kept so the program names the operator the model
called, and its kernel (the optimized library's masked_fill runs where's vector loop).

aten::_safe_softmax (scaled_dot_product_attention's softmax) becomes one operator of our
own, tailor_nn::safe_softmax (exporter/safe_softmax.py), not the table's six.

Left to the table on purpose: rsub (it becomes sub.out, the same one pass, which the
optimized library and XNNPACK serve; so no library declares rsub: nothing reaches it), repeat_interleave.self_int (no out variant; it
becomes an expand_copy) and narrow (a slice_copy).
"""

import torch

from exporter import safe_softmax

aten = torch.ops.aten

# Operators kept whole, each with the kernel that serves it.
KEPT_WHOLE = (
    aten.roll.default,                 # roll.out
    aten.tril.default,                 # tril.out
    aten.triu.default,                 # triu.out
    aten.stack.default,                # stack.out (cat + view_copy otherwise)
    aten.unbind.int,                   # unbind_copy.int_out (a slice and squeeze per part)
    aten.pixel_shuffle.default,        # pixel_shuffle.out
    aten.pixel_unshuffle.default,      # pixel_unshuffle.out
    aten.reflection_pad1d.default,     # reflection_pad{1,2,3}d.out
    aten.reflection_pad2d.default,
    aten.reflection_pad3d.default,
    aten.replication_pad1d.default,    # replication_pad{1,2,3}d.out
    aten.replication_pad2d.default,
    aten.replication_pad3d.default,
    aten.glu.default,                  # glu.out
    aten.silu.default,                 # silu.out (sigmoid and mul otherwise: two passes)
    aten.logit.default,                # logit.out
    aten.floor_divide.default,         # floor_divide.out / .Scalar_out (`x // 2`)
    aten.floor_divide.Scalar,
    aten.masked_fill.Scalar,           # masked_fill.Scalar_out (where + a constant otherwise)
    aten.masked_fill.Tensor,           # masked_fill.Tensor_out
    aten.select_scatter.default,       # select_scatter.out (unsqueeze, expand and where)
)


def decomposition_table() -> dict:
    """torch.export's default (core ATen) table without the KEPT_WHOLE operators, and
    aten::_safe_softmax (attention's softmax) lowered to tailor_nn::safe_softmax."""
    table = torch.export.default_decompositions()
    for op in KEPT_WHOLE:
        table.pop(op, None)
    safe = aten._safe_softmax.default
    table[safe] = safe_softmax.lowering(table[safe])
    return table
