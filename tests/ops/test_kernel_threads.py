"""The optimized kernels split over the kernel threads (runtime/kernel/parallel.h): the
elementwise, row and mean kernels (kernels/optimized/util/vec_parallel.h), max pooling by output
rows, im2col convolutions by column blocks, Winograd's transforms by channels and depthwise
ones by planes (util/conv_gemm.h, util/conv_winograd.h, util/conv_depthwise.h), and the
GEMM's row parts. Each case is large
enough to split (the cost rule's 128k); run with --threads 1, 2 and 3, every output is the
1-thread one bit for bit, and the 1-thread one matches torch (the harness's tolerance)."""

import numpy as np
import pytest

from tests.ops import harness
from tests.ops.cases import Arg, Constant, OpCase

_CONV = ("convolution.default", ("Float",))
CASES = [
    OpCase("gelu.default", ("Float",), [((3, 40, 129),)], name="threads"),
    OpCase("gelu.default", ("Float",), [((3, 40, 129),)], kwargs={"approximate": "tanh"},
           name="threads_tanh"),
    OpCase("sigmoid.default", ("Float",), [((5, 99, 61),)], name="threads"),
    OpCase("relu.default", ("Float",), [((2, 301, 257),)], name="threads"),
    OpCase("_softmax.default", ("Float",), [((4, 64, 67),)], args=(-1, False), name="threads"),
    OpCase("mean.dim", ("Float",), [((2, 96, 56, 56),)], args=([2, 3], True), name="threads"),
    OpCase("native_layer_norm.default", ("Float",),
           [((300, 129), Arg([129]), (129,), (129,), Arg(1e-5))], name="threads"),
    # One long row (split by columns) and many rows with a row operand (split by rows).
    OpCase("add.Tensor", ("Float",), [((140003,), (140003,)), ((700, 257), (257,))],
           name="threads"),
    OpCase("mul.Tensor", ("Float",), [((700, 257), (700, 1))], name="threads"),
    OpCase("mul.Scalar", ("Float",), [((3, 70001),)], args=(0.5,), name="threads"),
    OpCase("max_pool2d_with_indices.default", ("Float",), [((2, 16, 57, 57),)],
           args=([3, 3], [2, 2], [1, 1]), name="threads"),
    # Stride 2 (im2col by column blocks, with a bias), a 7x7 over 3 channels, and 3x3
    # stride 1 ones by Winograd, its transforms split by channels: F(2x2) of 64 channels
    # on a 7x7 output (16 tiles: its filters streamed, the 16 products and their
    # transposes over the threads), F(4x4) of 32 on 18x18 (25 tiles, streamed) and on
    # 70x70 (324 tiles in two bands; its sums rounded, hence the tolerance).
    OpCase(*_CONV, [((1, 8, 64, 64), Constant((16, 8, 3, 3)), Constant((16,)), Arg([2, 2]),
                     Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1))],
           domain="small", name="threads_im2col"),
    OpCase(*_CONV, [((1, 3, 70, 70), Constant((16, 3, 7, 7)), Arg(None), Arg([2, 2]),
                     Arg([3, 3]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1))],
           domain="small", name="threads_7x7"),
    OpCase(*_CONV, [((1, 64, 7, 7), Constant((96, 64, 3, 3)), Constant((96,)), Arg([1, 1]),
                     Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1))],
           domain="small", name="threads_winograd"),
    OpCase(*_CONV, [((1, 32, 18, 18), Constant((32, 32, 3, 3)), Constant((32,)), Arg([1, 1]),
                     Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1)),
                    ((1, 32, 70, 70), Constant((32, 32, 3, 3)), Constant((32,)), Arg([1, 1]),
                     Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(1))],
           domain="small", atol=5e-3, name="threads_winograd_f4"),
    # Depthwise planes in chunks over the threads: 7x7 planes of 5x5 windows (each one
    # tile, its padding zeroed once a chunk) and 300x300 ones of stride 2 (bands of rows).
    OpCase(*_CONV, [((1, 96, 7, 7), Constant((96, 1, 5, 5)), Constant((96,)), Arg([1, 1]),
                     Arg([2, 2]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(96)),
                    ((1, 4, 600, 300), Constant((4, 1, 3, 3)), Arg(None), Arg([2, 2]),
                     Arg([1, 1]), Arg([1, 1]), Arg(False), Arg([0, 0]), Arg(4))],
           domain="small", name="threads_depthwise"),
    # Row parts of a product without packing: 70 rows, and 65 (whose last row part would be
    # a single row: columns then).
    OpCase("mm.default", ("Float",), [((70, 300), (300, 40)), ((65, 300), (300, 40))],
           domain="small", name="threads_rows"),
]


@pytest.fixture(scope="module")
def threaded_build():
    fingerprint = harness._exporter_fingerprint()
    exported = {(c.id, "Float"): harness.export_case(c, "Float", fingerprint) for c in CASES}
    return harness.build_library("optimized", harness.Selection(exported, {})), exported


def _outputs(build, e, threads, folder):
    return [np.load(p) for p in harness.run_outputs(build, e, folder, threads)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_split_kernels_give_the_one_thread_results(threaded_build, case, tmp_path):
    build, exported = threaded_build
    e = exported[(case.id, "Float")]
    one = _outputs(build, e, 1, str(tmp_path))
    atol = case.atol if case.atol is not None else 1e-5
    for got, want in zip(one, e.expected):
        np.testing.assert_allclose(got, np.load(want), rtol=1e-5, atol=atol, err_msg=case.id)
    for threads in (2, 3):
        for got, want in zip(_outputs(build, e, threads, str(tmp_path)), one):
            np.testing.assert_array_equal(got, want, err_msg=f"{case.id} --threads {threads}")
