"""Which of the calls XNNPACK can run are worth a delegate, given the runtime's kernels.

Beside the portable kernels alone every group XNNPACK can run is delegated. Beside the
optimized kernels (a target whose kernel_libraries list `optimized`) a group becomes a
delegate only if it holds a dense convolution (more than one input channel a group), a
transposed one or an average pooling: there XNNPACK's NHWC kernels beat the optimized
ones (im2col; portable's loops), while on linear layers, softmax, elementwise arithmetic,
max pooling, means and depthwise convolutions they are no faster than the optimized
kernels, and each delegate call adds its setup and the layout copies at its edges (an
int8 MobileNetV2, whose float depthwise layers sat between quantized convolutions as 18
delegates of their own, ran 1.7x slower than on the kernels). The exception: 3x3
stride-1 convolutions the
optimized kernels run by Winograd stay with them (winograd_fits(); the kernel's own rule
is winograd_fits() in kernels/optimized/util/conv_winograd_plan.h, and
tests/backends/test_xnnpack_parity.py compares the two over a grid of shapes).
"""

from backends.xnnpack.support import (ADAPTIVE_AVG_POOL, AVG_POOL, CONV, RESHAPE, SQUEEZE,
                                      conv_ints)
from exporter.delegation import LoweredMethod

# The constants of winograd_fits() in kernels/optimized/util/conv_winograd_plan.h, for
# filters transformed at load (a convolution XNNPACK could run has a constant weight,
# which the runtime prepacks).
WINOGRAD_MIN_CHANNELS = 32
WINOGRAD_MAX_IN_CHANNELS = 256          # kWinogradMaxInChannels
WINOGRAD_PACKED_MAX_IN_CHANNELS = 512   # kWinogradPackedMaxInChannels
WINOGRAD_PACKED_MAX_TILES_W = 96        # kWinogradPackedMaxTilesW
WINOGRAD_PACKED_MIN_TILES = 16          # kWinogradPackedMinTiles
# winograd_tile_plan()'s scratch budget for F(2x2) (winograd_fits() asks it), which
# decides the widest outputs: one band of a tile row (its transformed input and products,
# its input rows) must fit.
WINOGRAD_FLOATS = 1 << 20       # kWinogradFloats
WINOGRAD_CHANNEL_BLOCK = 64     # kWinogradChannelBlock
WINOGRAD_MAX_TILES = 256        # kWinogradMaxTiles
WINOGRAD_SLACK = 16             # kWinogradSlack
GEMM_MAX_NR = 32                # kGemmMaxNr (util/gemm_ukernel.h)


def _one_tile_row_fits(in_channels: int, out_channels: int, tiles_w: int) -> bool:
    """winograd_tile_plan()'s test for F(2x2)'s smallest band, one tile row, with packed
    filters."""
    if tiles_w > WINOGRAD_MAX_TILES:
        return False
    block = min(out_channels, WINOGRAD_CHANNEL_BLOCK)
    ld = -(-tiles_w // GEMM_MAX_NR) * GEMM_MAX_NR + WINOGRAD_SLACK
    row_ld = tiles_w + 1 + WINOGRAD_SLACK
    floats = 16 * ((in_channels + block) * ld + 2 * WINOGRAD_SLACK) + 8 * row_ld
    return floats <= WINOGRAD_FLOATS


def winograd_fits(in_channels: int, out_channels: int, kernel: tuple, stride: tuple,
                  dilation: tuple, groups: int, out_h: int, out_w: int) -> bool:
    """Whether the optimized convolution runs a 2-d one of these sizes by Winograd
    F(2x2, 3x3), its filters transformed at load: 3x3, stride and dilation 1, one group,
    32 or more output channels, 16 tiles of 2x2 or more, and 32 to 256 input channels, or
    up to 512 with rows of 96 tiles at most; and a row of tiles within the kernel's
    scratch (the widest outputs: over 320 columns at 256 input channels)."""
    tiles_w = (out_w + 1) // 2
    tiles = (out_h + 1) // 2 * tiles_w
    channels = (in_channels <= WINOGRAD_MAX_IN_CHANNELS
                or (in_channels <= WINOGRAD_PACKED_MAX_IN_CHANNELS
                    and tiles_w <= WINOGRAD_PACKED_MAX_TILES_W))
    return (tuple(kernel) == (3, 3) and set(stride) | set(dilation) == {1} and groups == 1
            and in_channels >= WINOGRAD_MIN_CHANNELS and channels
            and out_channels >= WINOGRAD_MIN_CHANNELS and tiles >= WINOGRAD_PACKED_MIN_TILES
            and _one_tile_row_fits(in_channels, out_channels, tiles_w))


def winograd_on_kernels(m: LoweredMethod, i: int) -> bool:
    """Whether the optimized convolution runs call `i` (one XNNPACK could run) by
    Winograd (winograd_fits() for its sizes)."""
    call = m.calls[i]
    w = m.tensor(call.args[1])
    out = m.tensor(call.args[call.num_inputs])
    if len(w.sizes) != 4 or out.dynamic or m.literal(call.args[6]):
        return False
    cout, cin, kh, kw = w.sizes
    return winograd_fits(cin, cout, (kh, kw), conv_ints(m, i, 3), conv_ints(m, i, 5),
                         m.literal(call.args[8]), out.sizes[2], out.sizes[3])


def refuse(m: LoweredMethod, i: int, beside_optimized: bool):
    """Why a call XNNPACK can run stays with the kernels anyway, or None."""
    if beside_optimized and m.calls[i].op == CONV and winograd_on_kernels(m, i):
        return "a 3x3 stride-1 convolution: the optimized kernels run it faster (Winograd)"
    return None


def wins_beside_optimized(m: LoweredMethod, i: int) -> bool:
    """Whether XNNPACK runs call `i` faster than the optimized kernels (a delegate beside
    them needs one such call): a dense convolution (more than one input channel a group:
    a transposed one's weight is [in, out / groups, ...]) or a transposed one, which the
    optimized kernels leave to portable's loops, and average pooling, which they lack."""
    call = m.calls[i]
    if call.op == CONV:
        return bool(m.literal(call.args[6])) or m.tensor(call.args[1]).sizes[1] > 1
    return call.op in (AVG_POOL, ADAPTIVE_AVG_POOL)


def worth(m: LoweredMethod, calls: list, beside_optimized: bool):
    """None when a delegate running `calls` pays off, else why not."""
    if all(m.calls[i].op in RESHAPE or m.calls[i].op in SQUEEZE
           or m.calls[i].op == "aten::clone.out" for i in calls):
        return "only reshapes and copies: not worth a delegate call"
    if beside_optimized and not any(wins_beside_optimized(m, i) for i in calls):
        return ("no dense convolution or average pooling: the optimized kernels run these "
                "as fast without a delegate call and its layout copies")
    return None
