"""A group of claimed calls -> the nodes of its XNNPACK payload (payload.GraphBuilder).

Each call becomes one node (a few become two: a mean without keepdim pools, then drops
the 1s; SiLU is a sigmoid, then a multiply; a plain operand of a channels-last elementwise call is reshaped to a
channels-last view first). Linear layers take their constant [K, N] weight as XNNPACK's
filter with its transposed-weights flag; convolutions read their weight repacked
(packing.py); window attributes go in XNNPACK's order.
"""

from backends.xnnpack import pad_resize, prelu
from backends.xnnpack.layout import padded_channels_last
from backends.xnnpack.packing import packed_filter
from backends.xnnpack.payload import GraphBuilder
from backends.xnnpack.support import (ADAPTIVE_AVG_POOL, BINARY, CONV, LINEAR, MAX_POOL, MEAN,
                                      PAD, RESHAPE, RESIZE, SCALAR_BINARY, SQUEEZE, UNARY,
                                      WINDOW, adaptive_window, conv_ints, pool_window)
from exporter.delegation import LoweredMethod


def payload(m: LoweredMethod, calls: list, inputs: list, outputs: list,
            channels_last: frozenset) -> bytes:
    """The payload running `calls` (indices, execution order) on DelegateCall args
    `inputs + outputs`, with the values of `channels_last` in that layout."""
    g = GraphBuilder(inputs + outputs, constants=[v for v in inputs if m.is_constant(v)],
                     outputs=outputs, channels_last=channels_last)
    for i in calls:
        op, args = m.calls[i].op, m.calls[i].args
        out_vid = args[m.calls[i].num_inputs]
        out = g.value(out_vid)
        if op in LINEAR:
            mat1, mat2 = (args[1], args[2]) if op == "aten::addmm.out" else (args[0], args[1])
            operands = [g.value(mat1), g.value(mat2)]
            if op == "aten::addmm.out":
                operands.append(g.value(args[0]))
            # The filter is [K, N]; XNNPACK's own layout is [N, K].
            g.node("FullyConnected", operands, out, transpose_weights=True)
        elif op in BINARY:
            g.node(BINARY[op], [_operand(m, g, v, out_vid, channels_last)
                                for v in args[:2]], out)
        elif op in SCALAR_BINARY:
            g.node(SCALAR_BINARY[op], [_operand(m, g, args[0], out_vid, channels_last),
                                       g.scalar(m.literal(args[1]))], out)
        elif op in RESHAPE:
            dims = [(-1, g.arg(v)) if m.literal(v) is None else (m.literal(v), -1)
                    for v in m.items(args[1])]
            g.node("Reshape", [g.value(args[0])], out, shape=dims)
        elif op in SQUEEZE:
            g.node("Reshape", [g.value(args[0])], out,
                   shape=[(s, -1) for s in m.tensor(out_vid).sizes])
        elif op == CONV:
            _convolution(m, g, i, out)
        elif op in WINDOW:
            _pooling(m, g, i, out)
        elif op == prelu.WHERE:
            g.node("PRelu", [g.value(args[1]), g.value(prelu.slope(m, i))], out)
        elif op == RESIZE:
            pad_resize.resize_node(m, g, i, g.value(args[0]), out)
        elif op == PAD:
            pad_resize.pad_node(m, g, i, _operand(m, g, args[0], out_vid,
                                                       channels_last), out)
        else:
            _unary(m, g, i, out, channels_last)
    return g.serialize()


def _operand(m, g: GraphBuilder, v: int, out_vid: int, channels_last: set) -> int:
    """Operand `v` of an elementwise call writing `out_vid`: a plain operand of a
    channels-last call becomes a channels-last copy (same memory order, as checked)."""
    if out_vid not in channels_last or v in channels_last:
        return g.value(v)
    rank = len(m.tensor(out_vid).sizes)
    padded = padded_channels_last(m.tensor(v).sizes, rank)
    view = g.temp(channels_last=True)
    g.node("Reshape", [g.value(v)], view, shape=[(s, -1) for s in padded])
    return view


def _unary(m, g: GraphBuilder, i: int, out: int, channels_last: set) -> None:
    op, args = m.calls[i].op, m.calls[i].args
    x = _operand(m, g, args[0], args[m.calls[i].num_inputs], channels_last)
    if op == "aten::relu.out":
        g.node("Clamp", [x], out, min=0.0)
    elif op in ("aten::clamp.out", "aten::hardtanh.out"):
        lo, hi = (m.literal(v) for v in args[1:3])
        g.node("Clamp", [x], out, **({"min": float(lo)} if lo is not None else {}),
               **({"max": float(hi)} if hi is not None else {}))
    elif op == "aten::silu.out":  # no SiLU node in XNNPACK 2022: x * sigmoid(x)
        sigmoid = g.temp(channels_last=args[m.calls[i].num_inputs] in channels_last)
        g.node("Sigmoid", [x], sigmoid)
        g.node("Multiply", [x, sigmoid], out)
    elif op in ("aten::leaky_relu.out", "aten::elu.out"):
        g.node(UNARY[op], [x], out, alpha=float(m.literal(args[1])))
    else:
        g.node(UNARY[op], [x], out)


def _convolution(m, g: GraphBuilder, i: int, out: int) -> None:
    args = m.calls[i].args
    stride, padding, dilation = (conv_ints(m, i, at) for at in (3, 4, 5))
    transposed = m.literal(args[6])
    adjustment = conv_ints(m, i, 7) if transposed else [0] * len(stride)
    if len(stride) == 1:                   # 1-d: a 2-d window of height 1
        stride, padding, dilation = [1] + stride, [0] + padding, [1] + dilation
        adjustment = [0] + adjustment
    sizes = m.tensor(args[1]).sizes
    kernel = [1, sizes[2]] if len(sizes) == 3 else sizes[2:]
    filt, depthwise = packed_filter(m, i)
    operands = [g.value(args[0]), g.value(filt)]
    if m.tensor(args[2]) is not None:
        operands.append(g.value(args[2]))
    if transposed:
        # torch's output_padding is XNNPACK's adjustment, added after the last row.
        g.node("Deconvolution2d", operands, out,
               window=_window(kernel, stride, dilation, padding),
               groups=m.literal(args[8]), adjustment_h=adjustment[0],
               adjustment_w=adjustment[1])
        return
    g.node("DepthwiseConvolution2d" if depthwise else "Convolution2d", operands, out,
           window=_window(kernel, stride, dilation, padding),
           groups=1 if depthwise else m.literal(args[8]))


def _pooling(m, g: GraphBuilder, i: int, out: int) -> None:
    op, args = m.calls[i].op, m.calls[i].args
    x = g.value(args[0])
    sizes = m.tensor(args[0]).sizes
    if op == MEAN:
        if m.literal(args[2]):             # keepdim: [N, C, 1, 1]
            g.node("GlobalAveragePooling2d", [x], out)
        else:                              # [N, C]: pool, then drop the 1s
            pooled = g.temp(channels_last=True)
            g.node("GlobalAveragePooling2d", [x], pooled)
            g.node("Reshape", [pooled], out, shape=[(-1, -1), (sizes[1], -1)])
    elif op == ADAPTIVE_AVG_POOL:
        size = m.ints(args[1])
        if size == [1, 1]:
            g.node("GlobalAveragePooling2d", [x], out)
        else:
            kernel = [adaptive_window(sizes[2], size[0]), adaptive_window(sizes[3], size[1])]
            g.node("AveragePooling2d", [x], out,
                   window=_window(kernel, kernel, [1, 1], [0, 0]))
    else:
        kernel, stride, padding, dilation, ceil_mode = pool_window(m, i)
        g.node("MaxPooling2d" if op == MAX_POOL else "AveragePooling2d", [x], out,
               window=_window(kernel, stride, dilation, padding), ceil_mode=bool(ceil_mode))


def _window(kernel: list, stride: list, dilation: list, padding: list) -> dict:
    return {"kernel_h": kernel[0], "kernel_w": kernel[1], "stride_h": stride[0],
            "stride_w": stride[1], "dilation_h": dilation[0], "dilation_w": dilation[1],
            "pad_top": padding[0], "pad_left": padding[1], "pad_bottom": padding[0],
            "pad_right": padding[1]}
