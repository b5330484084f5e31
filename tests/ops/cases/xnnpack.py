"""What the XNNPACK partitioner delegates whole."""

from tests.ops.cases.spec import In, Constant, Computed, Arg, OpCase
from tests.ops.cases.groups import XNNPACK_BINARY, XNNPACK_UNARY

CASES = [
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
      for op in ("relu", "neg", "abs", "sigmoid", "silu")],
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
