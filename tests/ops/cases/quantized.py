"""The quantized library's cases (kernels/quantized/)."""

from tests.ops.cases.spec import Dtype, DTYPE, In, Constant, Arg, OpCase


def _qlinear(m: tuple, n: int, k: int, bits: int, groups: int, bias: bool = True) -> tuple:
    """One call of tailor_quant::linear: input m + (k,), n outputs, weights packed in
    blocks of 8 rows (int8: 32 bytes per 4 inputs, scales [1, n]; int4: per 8, each group
    followed by its scales, weight_scales [0, n]), bias [n] or None
    (kernels/quantized/util/qlinear_layout.h)."""
    blocks = -(-n // 8)
    if bits == 8:
        weight, scales = Constant((blocks, -(-k // 4) * 32), "Char"), (groups, n)
    else:
        weight = Constant((blocks, k * 4 + groups * 32), "Byte",
                          domain=f"int4_blocks_{k // groups}")
        scales = (0, n)
    return (In((*m, k)), weight, Constant(scales, "Float", domain="positive"),
            Constant((n,), "Float") if bias else None)


def _qconv(shape: tuple, out_channels: int, window: tuple, stride: tuple, padding: tuple,
           dilation: tuple, bias: bool = True, clamp: tuple = ()) -> tuple:
    """One call of tailor_quant::conv2d: an NCHW input, int8 weights packed as the
    linear's over (window rows, window columns, channels padded to 4), scales [1, out];
    `clamp`: (output_min, output_max), each a number or None."""
    k = window[0] * window[1] * -(-shape[1] // 4) * 4
    return (In(shape), Constant((-(-out_channels // 8), k * 8), "Char"),
            Constant((1, out_channels), "Float", domain="positive"),
            Constant((out_channels,), "Float") if bias else None,
            Arg(list(window)), Arg(list(stride)), Arg(list(padding)), Arg(list(dilation)),
            *(Arg(bound) for bound in clamp))


# The quantized library (kernels/quantized/, manifests/kernels/quantized.yaml). Linear:
# 1 to 9 rows cross the 4-row tiles of util/qlinear.h, 3, 5, 13 and 17 outputs partial
# blocks of 8, k = 70 and 37 partial quads of inputs, several groups per row the
# per-group scales; its LEVELED runs test the plain C++ kernels on the same references.
CASES = [
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 8, 64, 8, 1), _qlinear((5,), 3, 70, 8, 1),
            _qlinear((2, 3), 17, 64, 8, 1, bias=False), _qlinear((9,), 13, 256, 8, 1)],
           args=(8, True), name="8da8w", atol=1e-4, rtol=1e-5),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 8, 64, 4, 2), _qlinear((6,), 5, 128, 4, 4),
            _qlinear((2, 3), 3, 96, 4, 1, bias=False)],
           args=(4, True), name="8da4w", atol=1e-4, rtol=1e-5),
    # The paths of util/qlinear.h by rows: one row streams whole blocks through the decode
    # kernels (24, 40 outputs; 41 ends in a general-path block); 4 rows and more take the
    # int4 prefill GEMM in block pairs (35 outputs: a lone partial block last), 8-row
    # tiles and the rest (19 rows), 33 groups unpacked in two parts (k = 1056). atol: its
    # outputs reach 400, and torch sums 1056 products in another order (every level,
    # the general path included, lands within 2e-4 of eager, 5e-7 of the largest output).
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 24, 96, 4, 3), _qlinear((1,), 41, 64, 4, 2),
            _qlinear((19,), 35, 1056, 4, 33), _qlinear((5,), 16, 64, 4, 1, bias=False)],
           args=(4, True), name="8da4w_decode_prefill", atol=1e-3, rtol=1e-5),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 40, 70, 8, 1), _qlinear((1,), 41, 130, 8, 1, bias=False)],
           args=(8, True), name="8da8w_decode", atol=1e-4, rtol=1e-5),
    # 4 rows and more take the int8 prefill GEMM: 19 rows cross the 8- and 4-row tiles,
    # k = 1300 unpacks in two spans (the last short), 35 and 9 outputs end in a lone
    # partial block; on 2 threads, each takes whole block pairs.
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((19,), 35, 1300, 8, 1), _qlinear((7,), 9, 37, 8, 1, bias=False),
            _qlinear((2, 5), 24, 130, 8, 1)],
           args=(8, True), name="8da8w_prefill", atol=1e-3, rtol=1e-5),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((19,), 35, 1300, 8, 1), _qlinear((13,), 41, 256, 8, 1, bias=False)],
           args=(8, True), name="8da8w_prefill_threads", atol=1e-3, rtol=1e-5, threads=2),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((19,), 35, 1056, 4, 33), _qlinear((13,), 41, 256, 4, 2, bias=False)],
           args=(4, True), name="8da4w_prefill_threads", atol=1e-3, rtol=1e-5, threads=2),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((1,), 8, 64, 8, 1), _qlinear((7,), 3, 37, 8, 1),
            _qlinear((2, 2), 5, 64, 8, 1, bias=False)],
           args=(8, False), name="int8_weight", atol=1e-4, rtol=1e-5),
    # Weight-only int8 from 4 rows on (AVX2): the pair's weights as floats 256 inputs at a
    # time (k = 1300: six spans, the last short and ending in a partial quad), 6-row tiles
    # and 1 over (19 rows), a lone partial block last (35 outputs); on 2 threads too.
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((19,), 35, 1300, 8, 1), _qlinear((2, 5), 24, 130, 8, 1, bias=False)],
           args=(8, False), name="int8_weight_prefill", atol=1e-3, rtol=1e-5),
    OpCase("tailor_quant::linear.default", ("Float",),
           [_qlinear((19,), 35, 1300, 8, 1), _qlinear((13,), 41, 256, 8, 1, bias=False)],
           args=(8, False), name="int8_weight_prefill_threads", atol=1e-3, rtol=1e-5,
           threads=2),
    # The quantized convolution (util/qconv.h): 3 channels padded to 4, 13 outputs (a
    # partial block), a strided 1x1, a dilated strided 3x2 window without bias; 4200
    # columns of 16 channels hold 15 input rows in the band (several bands a call, a
    # chunk a part of one output row); a padding wider than the image (output rows that
    # read none of it); 120 channels make patches of 1080 bytes, two of the GEMM's spans
    # of 1024 with a tap across their border. On 2 threads: one piece of output rows (its
    # weight blocks split), 7 pieces of 6 rows and 12 parts of rows (the pieces split, each
    # gathering its own).
    OpCase("tailor_quant::conv2d.default", ("Float",),
           [_qconv((2, 3, 9, 11), 13, (3, 3), (1, 1), (1, 1), (1, 1)),
            _qconv((1, 8, 7, 6), 16, (1, 1), (2, 2), (0, 0), (1, 1)),
            _qconv((1, 5, 10, 9), 9, (3, 2), (2, 1), (1, 0), (2, 1), bias=False),
            _qconv((1, 16, 20, 4200), 8, (3, 3), (1, 2), (1, 1), (1, 1)),
            _qconv((1, 4, 3, 3), 8, (3, 3), (1, 1), (4, 4), (1, 1)),
            _qconv((1, 120, 6, 7), 32, (3, 3), (1, 1), (1, 1), (1, 1))],
           name="8da8w", atol=1e-3, rtol=1e-5),
    # Fused activations (exporter/passes/activation_fusion.py): relu6's bounds, an upper
    # bound alone, a lower one alone (a relu) on 2 threads whose pieces clamp their own.
    OpCase("tailor_quant::conv2d.default", ("Float",),
           [_qconv((1, 5, 9, 11), 32, (3, 3), (1, 1), (1, 1), (1, 1), clamp=(0.0, 6.0)),
            _qconv((1, 8, 7, 6), 13, (1, 1), (1, 1), (0, 0), (1, 1), clamp=(None, 0.5))],
           name="8da8w_clamp", atol=1e-3, rtol=1e-5),
    OpCase("tailor_quant::conv2d.default", ("Float",),
           [_qconv((1, 16, 4, 600), 16, (3, 3), (1, 1), (1, 1), (1, 1), clamp=(0.0, None))],
           name="8da8w_clamp_threads", atol=1e-3, rtol=1e-5, threads=2),
    OpCase("tailor_quant::conv2d.default", ("Float",),
           [_qconv((1, 20, 14, 14), 40, (3, 3), (1, 1), (1, 1), (1, 1)),
            _qconv((2, 8, 40, 40), 24, (3, 3), (1, 1), (1, 1), (1, 1)),
            _qconv((1, 16, 4, 600), 16, (3, 3), (1, 1), (1, 1), (1, 1))],
           name="8da8w_threads", atol=1e-3, rtol=1e-5, threads=2),
    # Lookups in a linear's packed table (a tied embedding): 13 rows end in a partial
    # block of 8, 70 inputs in a partial quad (int8); two groups per row (int4).
    OpCase("tailor_quant::embedding.default", ("Float",),
           [(*_qlinear((), 13, 70, 8, 1)[1:3], Arg(8), Arg(70), In((2, 3), "Long", domain="positive")),
            (*_qlinear((), 16, 64, 8, 1)[1:3], Arg(8), Arg(64), In((5,), "Int", domain="positive"))],
           name="int8"),
    OpCase("tailor_quant::embedding.default", ("Float",),
           [(*_qlinear((), 13, 64, 4, 2)[1:3], Arg(4), Arg(64), In((2, 3), "Long", domain="positive")),
            (*_qlinear((), 9, 96, 4, 1)[1:3], Arg(4), Arg(96), In((4,), "Long", domain="positive"))],
           name="int4"),
    OpCase("quantized_decomposed::embedding_byte.default", ("Float",),
           [(Constant((10, 4), "Char"), Constant((10,), "Float", domain="positive"), None,
             Arg(-127), Arg(127), In((2, 3), "Long", domain="positive")),
            (Constant((10, 4), "Char"), Constant((10,), "Float", domain="positive"),
             Constant((10,), "Float"), Arg(-127), Arg(127), In((5,), "Int", domain="positive"))]),
    OpCase("quantized_decomposed::quantize_per_tensor.default", ("Float",),
           [((2, 3),), ((0, 4),), ((40,),)], args=(0.05, 3, -128, 127, Dtype("Char"))),
    OpCase("quantized_decomposed::quantize_per_tensor.default", ("Float",), [((4, 5),)],
           args=(0.02, 128, 0, 255, Dtype("Byte")), name="uint8"),
    OpCase("quantized_decomposed::dequantize_per_tensor.default", ("Char", "Byte"),
           [((2, 3),), ((7,),)], args=(0.25, 2, -128, 255, DTYPE)),
    OpCase("quantized_decomposed::dequantize_per_channel.default", ("Char",),
           [((3, 4), Constant((4,), "Float", domain="positive"), In((4,), "Long")),
            ((2, 3, 2), Constant((3,), "Float", domain="positive"), None)],
           args=(1, -128, 127, DTYPE)),
    OpCase("quantized_decomposed::choose_qparams.tensor", ("Float",),
           [((4, 5),), ((3,),)], args=(-128, 127, 1e-5, Dtype("Char"))),
]
