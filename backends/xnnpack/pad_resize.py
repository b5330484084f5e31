"""Constant padding and bilinear resizing for the XNNPACK partitioner: when XNNPACK 2022
computes what torch computes (check_*), and their payload nodes (*_node).

Padding (aten::constant_pad_nd) keeps the layout of its input, like the elementwise ops:
the runtime orders the per-dim paddings as XNNPACK's dims
(backends/xnnpack/runtime/xnnpack_pad_resize.cpp). Bilinear resizing
(aten::upsample_bilinear2d.vec) is NHWC in XNNPACK, so its tensors are channels-last
like a pooling's. XNNPACK samples output cell o of a size-`out` dim from an `in`-cell one
at (o + 0.5) * in / out - 0.5 (clamped to the input), or o * (in - 1) / (out - 1) with
align_corners: torch's rule when torch's scale is in / out, which it is unless
scale_factors are given without align_corners (then torch takes 1 / scale_factor).
"""

import numpy as np

# XNNPACK's resize indexes rows and columns in float: it takes fewer than 2^24.
MAX_RESIZE = 1 << 24


def check_pad(m, i: int):
    """Why XNNPACK cannot run constant_pad_nd call `i`, or None."""
    args = m.calls[i].args
    pads = m.ints(args[1])
    if pads is None:
        return "its padding is not known at export"
    if any(p < 0 for p in pads):
        return "a negative padding (a crop: XNNPACK 2022's constant pad only adds cells)"
    value = m.literal(args[2])
    if value is None:
        return "the padding value is not a number known at export"
    return None


def pad_node(m, g, i: int, x: int, out: int) -> None:
    """The ConstantPad node of call `i` reading subgraph value `x` (torch's pads run in
    (before, after) pairs from the last dim backwards; the payload's are per dim)."""
    args = m.calls[i].args
    pads = m.ints(args[1])
    rank = len(m.tensor(args[0]).sizes)
    pre, post = [0] * rank, [0] * rank
    for k in range(len(pads) // 2):
        pre[rank - 1 - k], post[rank - 1 - k] = pads[2 * k], pads[2 * k + 1]
    g.node("ConstantPad", [x], out, pre_padding=pre, post_padding=post,
           padding_value=float(m.literal(args[2])))


def _static_hw(t) -> bool:
    """Whether a [N, C, H, W] tensor's height and width are fixed at export."""
    return not t.dynamic or (t.min_sizes is not None and t.min_sizes[2:] == t.sizes[2:])


def check_resize(m, i: int):
    """Why XNNPACK cannot run upsample_bilinear2d.vec call `i`, or None."""
    call = m.calls[i]
    args = call.args
    x, out = m.tensor(args[0]), m.tensor(args[call.num_inputs])
    if not _static_hw(out):
        return "a resize to a height or width computed at run time"
    if max(x.sizes[2:] + out.sizes[2:]) >= MAX_RESIZE:
        return "a resize of 2^24 or more rows or columns (XNNPACK indexes them in float)"
    align_corners = m.literal(args[2])
    if align_corners is None:
        return "align_corners is not known at export"
    if align_corners or m.kind(args[3]) == "None":
        return None
    scales = m.items(args[3])  # a DoubleList holds its numbers
    if not _static_hw(x):
        return "scale factors on a dynamic height or width"
    for size, scale, n in zip(x.sizes[2:], scales, out.sizes[2:]):
        # torch's source scale: float(1 / scale_factor); XNNPACK's: float(in) / float(out).
        if scale > 0 and np.float32(1.0 / scale) != np.float32(size) / np.float32(n):
            return (f"a scale factor ({scale:g}) that is not output/input size ({n}/{size}): "
                    "torch then samples at 1/scale, XNNPACK at input/output size")
    return None


def resize_node(m, g, i: int, x: int, out: int) -> None:
    """The ResizeBilinear2d node of call `i` reading subgraph value `x`."""
    call = m.calls[i]
    height, width = m.tensor(call.args[call.num_inputs]).sizes[2:]
    g.node("ResizeBilinear2d", [x], out, output_height=height, output_width=width,
           align_corners=bool(m.literal(call.args[2])))
