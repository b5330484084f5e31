"""Pooling, grid sampling, adaptive pooling and resampling."""

from tests.ops.cases.spec import Given, Computed, OpCase
from tests.ops.cases.groups import FLOAT, INT

CASES = [
    # --- pooling, resampling and padding ---
    # Max pooling returns (values, indices): both are compared. Random integers tie often;
    # the first maximum must win, as in torch. Arguments: kernel_size, stride, padding,
    # dilation, ceil_mode (an empty stride means the kernel size; one value means both dims).
    OpCase("max_pool2d_with_indices.default", INT + FLOAT,
           [((2, 3, 7, 9),), ((3, 8, 8),), ((1, 1, 3, 3),)], args=([3, 3], [2, 2], [1, 1])),
    # ceil_mode: the last windows hang off the bottom/right edge; 11 with kernel 3, stride 3
    # and padding 1 drops the window that would start in the right padding (torch's rule).
    OpCase("max_pool2d_with_indices.default", ("Float", "Int"),
           [((2, 2, 8, 10),), ((2, 11, 8),)], args=([3, 3], [2, 2], [1, 1], [1, 1], True),
           name="ceil"),
    OpCase("max_pool2d_with_indices.default", ("Float", "Double"),
           [((1, 2, 11, 8),), ((2, 7, 5),)], args=([3, 3], [3, 3], [1, 1], [1, 1], True),
           name="ceil_drop"),
    OpCase("max_pool2d_with_indices.default", ("Float", "Half"),
           [((2, 2, 9, 8),), ((3, 10, 7),)], args=([3, 2], [1, 2], [1, 0], [2, 1]),
           name="dilation"),
    OpCase("max_pool2d_with_indices.default", ("Float", "Char"),
           [((2, 3, 10, 9),)], args=([3, 3], [2, 3], [1, 1], [2, 2], True),
           name="dilation_ceil"),
    OpCase("max_pool2d_with_indices.default", ("Float", "Long"),
           [((2, 3, 7, 9),), ((4, 5, 5),)], args=([2, 3],), name="defaults"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((2, 3, 7, 9),)], args=([3], [2], [1], [1]), name="single_values"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((2, 3, 5, 5),)], args=([5, 5], [1, 1], [2, 2]), name="kernel_covers_input"),
    # MaxPool1d exports as unsqueeze, this, squeeze.
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((2, 3, 1, 11),)], args=([1, 3], [1, 2], [0, 1], [1, 1], True), name="as_1d"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((0, 3, 6, 6),)], args=([2, 2],), name="empty_batch"),
    # Dilation 3 with padding 1 over 2 rows: each window's taps (-1 and 2) miss the input,
    # which gives the lowest value (-inf) and the index of the first tap past the padding.
    OpCase("max_pool2d_with_indices.default", ("Float", "Short"),
           [((1, 2, 2, 4),)], args=([2, 1], [1, 1], [1, 0], [3, 1]), name="window_in_padding"),
    # The optimized kernel: vectors of up to 16 output columns across a row's inner windows
    # (stride 1 or 2), scalar cells at the edges and for other strides; a NaN among a
    # vector's taps sends its cells to the scalar loop. Small integers tie often.
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((1, 3, 9, 70),), ((2, 2, 7, 65),)], args=([3, 3], [2, 2], [1, 1]),
           domain="small", name="wide_rows"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [((1, 2, 5, 41),)], args=([2, 3], [1, 1], [0, 1], [1, 2]), domain="small",
           name="wide_rows_stride1"),
    OpCase("max_pool2d_with_indices.default", ("Float",),
           [(Computed((1, 2, 6, 70), by="log"),)], args=([3, 3], [2, 2], [1, 1]),
           domain="small", name="wide_rows_nan"),

    # Arguments: kernel_size, stride, padding, ceil_mode, count_include_pad,
    # divisor_override.
    OpCase("avg_pool2d.default", FLOAT,
           [((2, 3, 7, 9),), ((3, 8, 8),), ((1, 1, 3, 3),)], args=([3, 3], [2, 2], [1, 1])),
    OpCase("avg_pool2d.default", FLOAT,
           [((2, 3, 7, 9),), ((3, 8, 8),)], args=([3, 3], [2, 2], [1, 1], False, False),
           name="exclude_pad"),
    # ceil_mode: the divisor of a window hanging off the edge counts the padding but not
    # what lies past it (count_include_pad), or only the input (not).
    OpCase("avg_pool2d.default", ("Float", "Double"),
           [((2, 2, 8, 10),), ((2, 11, 8),)], args=([3, 3], [2, 2], [1, 1], True, True),
           name="ceil"),
    OpCase("avg_pool2d.default", ("Float", "Half"),
           [((2, 2, 8, 10),), ((2, 11, 8),)], args=([3, 3], [3, 3], [1, 1], True, False),
           name="ceil_exclude_pad"),
    OpCase("avg_pool2d.default", ("Float", "BFloat16"),
           [((2, 3, 7, 9),), ((3, 6, 5),)], args=([3, 2], [1, 2], [1, 1], True, True, 5),
           name="divisor"),
    OpCase("avg_pool2d.default", ("Float",),
           [((2, 3, 7, 9),)], args=([2, 2], [2, 2], [1, 1], False, False, -3),
           name="negative_divisor"),
    OpCase("avg_pool2d.default", ("Float", "Double"),
           [((2, 3, 7, 9),), ((4, 5, 5),)], args=([2, 3],), name="defaults"),
    OpCase("avg_pool2d.default", ("Float",),
           [((2, 3, 7, 9),)], args=([3], [2], [1]), name="single_values"),
    # AvgPool1d exports as unsqueeze, this, squeeze.
    OpCase("avg_pool2d.default", ("Float",),
           [((2, 3, 1, 11),)], args=([1, 3], [1, 2], [0, 1], True, False), name="as_1d"),
    OpCase("avg_pool2d.default", ("Float",),
           [((0, 3, 6, 6),)], args=([2, 2],), name="empty_batch"),

    # 3-d pooling (MaxPool3d, AvgPool3d): the 2-d rules per dim, over D x H x W volumes
    # of 4-d and 5-d inputs. Arguments as the 2-d ops'.
    OpCase("max_pool3d_with_indices.default", INT + FLOAT,
           [((2, 3, 5, 6, 7),), ((3, 4, 5, 5),), ((1, 1, 2, 2, 2),)],
           args=([3, 3, 3], [2, 2, 2], [1, 1, 1])),
    OpCase("max_pool3d_with_indices.default", ("Float", "Int"),
           [((1, 2, 6, 8, 7),), ((2, 7, 8, 5),)], args=([3, 2, 3], [2, 2, 3], [1, 1, 1],
                                                      [1, 1, 1], True), name="ceil"),
    OpCase("max_pool3d_with_indices.default", ("Float", "Half"),
           [((1, 2, 7, 6, 9),)], args=([2, 3, 2], [1, 2, 1], [1, 0, 1], [2, 1, 3]),
           name="dilation"),
    OpCase("max_pool3d_with_indices.default", ("Float", "Long"),
           [((2, 2, 4, 5, 6),), ((2, 4, 4, 4),)], args=([2],), name="defaults"),
    OpCase("max_pool3d_with_indices.default", ("Float",), [((0, 2, 4, 4, 4),)], args=([2, 2, 2],),
           name="empty_batch"),
    OpCase("max_pool3d_with_indices.default", ("Float", "Short"), [((1, 2, 2, 2, 4),)],
           args=([2, 2, 1], [1, 1, 1], [1, 1, 0], [3, 3, 1]), name="window_in_padding"),
    OpCase("max_pool3d_with_indices.default", ("Float",),
           [(Computed((1, 2, 4, 5, 6), by="log"),)], args=([2, 2, 2], [1, 2, 2]),
           domain="small", name="nan"),
    OpCase("avg_pool3d.default", ("Float", "Double"),
           [((2, 3, 5, 6, 7),), ((3, 4, 5, 5),), ((1, 1, 3, 3, 3),)],
           args=([3, 3, 3], [2, 2, 2], [1, 1, 1])),
    OpCase("avg_pool3d.default", ("Float", "Double"), [((2, 2, 5, 7, 6),)],
           args=([3, 3, 2], [2, 3, 2], [1, 1, 1], False, False), name="exclude_pad"),
    OpCase("avg_pool3d.default", ("Float", "Double"), [((1, 2, 6, 8, 7),), ((2, 7, 8, 5),)],
           args=([3, 3, 3], [2, 2, 3], [1, 1, 1], True, True), name="ceil"),
    OpCase("avg_pool3d.default", ("Float",), [((1, 2, 6, 8, 7),)],
           args=([3, 3, 3], [3, 3, 3], [1, 1, 1], True, False), name="ceil_exclude_pad"),
    OpCase("avg_pool3d.default", ("Float",), [((1, 2, 5, 6, 7),)],
           args=([2, 3, 2], [1, 2, 2], [1, 1, 0], False, True, -5), name="divisor"),
    OpCase("avg_pool3d.default", ("Float",), [((2, 2, 4, 5, 6),)], args=([2],),
           name="defaults"),
    OpCase("avg_pool3d.default", ("Float",), [((0, 2, 4, 4, 4),)], args=([2, 2, 2],),
           name="empty_batch"),

    # grid_sampler_2d (F.grid_sample): input, grid, interpolation_mode (0 bilinear, 1
    # nearest, 2 bicubic), padding_mode (0 zeros, 1 border, 2 reflection), align_corners.
    # Random grids reach past [-1, 1] on every side; a 1x1 input has nothing to reflect
    # over; the given grid holds the corners, the centre and points half a pixel off.
    *[OpCase("grid_sampler_2d.default", dtypes,
             [((2, 3, 5, 7), (2, 4, 6, 2)), ((1, 2, 1, 1), (1, 2, 3, 2)),
              ((1, 2, 4, 4), Given((1, 3, 3, 2), values=(
                  -1, -1, 1, 1, 0, 0, -1, 1, 1, -1, 0.125, 0.375, 1.5, -1.5, -1.25, 2.0,
                  0.625, -0.875))),
              ((0, 2, 3, 3), (0, 2, 2, 2)), ((1, 2, 3, 3), (1, 0, 3, 2))],
             args=(mode, padding, align),
             name=f"{mode_name}_{padding_name}{'_align' if align else ''}")
      for mode, mode_name, dtypes in [(0, "bilinear", ("Float", "Double")),
                                      (1, "nearest", ("Float", "Double")),
                                      (2, "bicubic", ("Float",))]
      for padding, padding_name in [(0, "zeros"), (1, "border"), (2, "reflection")]
      for align in (False, True)],
    OpCase("grid_sampler_2d.default", ("Half", "BFloat16"),
           [((1, 2, 5, 6), (1, 3, 4, 2))], args=(0, 0, False), domain="small",
           name="bilinear_16bit"),
    # F.affine_grid's grid: a rotation and a scale (the spatial transformer's).
    OpCase("grid_sampler_2d.default", ("Float",),
           [((2, 3, 6, 8), Computed((2, 2, 3), by="affine_grid_generator",
                                    args=([2, 3, 5, 7], False)))],
           args=(0, 0, False), name="affine_grid"),

    # grid_sampler_3d (F.grid_sample on 5-D input): the same modes but bicubic, which
    # torch has only in 2-D; a grid of (x, y, z). The given grid holds corners, the
    # centre and points half a voxel off and outside.
    *[OpCase("grid_sampler_3d.default", ("Float", "Double"),
             [((2, 3, 4, 5, 6), (2, 3, 2, 4, 3)), ((1, 2, 1, 1, 1), (1, 2, 1, 3, 3)),
              ((1, 2, 3, 4, 4), Given((1, 2, 3, 1, 3), values=(
                  -1, -1, -1, 1, 1, 1, 0, 0, 0, 0.125, -0.375, 0.625, 1.5, -1.25, 2.0,
                  -0.875, 0.3, -1.5))),
              ((0, 2, 3, 3, 3), (0, 2, 2, 2, 3)), ((1, 2, 3, 3, 3), (1, 0, 2, 3, 3))],
             args=(mode, padding, align),
             name=f"{mode_name}_{padding_name}{'_align' if align else ''}")
      for mode, mode_name in [(0, "bilinear"), (1, "nearest")]
      for padding, padding_name in [(0, "zeros"), (1, "border"), (2, "reflection")]
      for align in (False, True)],
    OpCase("grid_sampler_3d.default", ("Half", "BFloat16"),
           [((1, 2, 3, 4, 5), (1, 2, 3, 2, 3))], args=(0, 0, False), domain="small",
           name="bilinear_16bit"),
    OpCase("grid_sampler_3d.default", ("Float",),
           [((1, 2, 3, 4, 5), Computed((1, 3, 4), by="affine_grid_generator",
                                       args=([1, 2, 3, 4, 5], True)))],
           args=(0, 1, True), name="affine_grid"),

    # Adaptive pooling: output cell i of n covers [floor(i*in/n), ceil((i+1)*in/n)).
    OpCase("_adaptive_avg_pool2d.default", FLOAT, [((2, 3, 7, 9),), ((3, 7, 9),)],
           args=([4, 5],), name="smaller"),
    OpCase("_adaptive_avg_pool2d.default", ("Float", "Double"), [((1, 2, 7, 9),)],
           args=([10, 13],), name="bigger"),
    OpCase("_adaptive_avg_pool2d.default", ("Float", "Half"), [((2, 7, 9),)], args=([7, 9],),
           name="equal"),
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((2, 3, 8, 9),)], args=([4, 3],),
           name="divides"),
    OpCase("_adaptive_avg_pool2d.default", ("Float", "BFloat16"), [((2, 3, 5, 6),)],
           args=([1, 1],), name="one"),
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((1, 3, 5, 9),)], args=([2, 12],),
           name="mixed"),
    # AdaptiveAvgPool1d exports as unsqueeze, this, squeeze.
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((2, 3, 1, 11),)], args=([1, 4],),
           name="as_1d"),
    OpCase("_adaptive_avg_pool2d.default", ("Float",), [((0, 3, 5, 5),), ((2, 3, 5, 5),)],
           args=([0, 2],), name="empty"),
    OpCase("adaptive_max_pool2d.default", FLOAT, [((2, 3, 7, 9),), ((3, 7, 9),)],
           args=([4, 5],), name="smaller"),
    OpCase("adaptive_max_pool2d.default", ("Float", "Double"), [((1, 2, 7, 9),)],
           args=([10, 13],), name="bigger"),
    OpCase("adaptive_max_pool2d.default", ("Float", "Half"), [((2, 7, 9),)], args=([7, 9],),
           name="equal"),
    OpCase("adaptive_max_pool2d.default", ("Float",), [((2, 3, 8, 9),)], args=([4, 3],),
           name="divides"),
    OpCase("adaptive_max_pool2d.default", ("Float", "BFloat16"), [((2, 3, 5, 6),)],
           args=([1, 1],), name="one"),
    OpCase("adaptive_max_pool2d.default", ("Float",), [((1, 3, 5, 9),)], args=([2, 12],),
           name="mixed"),
    OpCase("adaptive_max_pool2d.default", ("Float",), [((2, 3, 1, 11),)], args=([1, 4],),
           name="as_1d"),
    OpCase("adaptive_max_pool2d.default", ("Float",), [((0, 3, 5, 5),), ((2, 3, 5, 5),)],
           args=([0, 2],), name="empty"),

    # Resampling: F.interpolate exports as these .vec ops, with output_size or with
    # scale_factors. Given scale factors, torch maps output o to input floor(o / scale),
    # not floor(o * in / out): 5 rows at scale 1.7 give 8, and output row 5 reads row 2,
    # not 3; 9 columns at scale 0.4 give 3, which read columns 0, 2, 5, not 0, 3, 6.
    OpCase("upsample_nearest2d.vec", ("Byte",) + FLOAT, [((2, 3, 5, 7),), ((1, 1, 4, 4),)],
           args=([10, 13], None), name="size"),
    OpCase("upsample_nearest2d.vec", ("Float",), [((2, 3, 5, 7),)], args=([5, 7], None),
           name="same_size"),
    OpCase("upsample_nearest2d.vec", ("Float", "Half"), [((2, 3, 5, 7),)],
           args=([10, 14], None), name="double_size"),
    OpCase("upsample_nearest2d.vec", ("Float",), [((2, 3, 7, 9),)], args=([3, 4], None),
           name="smaller"),
    OpCase("upsample_nearest2d.vec", ("Float", "Byte"), [((2, 3, 5, 7),), ((1, 2, 3, 1),)],
           args=(None, [2.0, 2.0]), name="scale2"),
    OpCase("upsample_nearest2d.vec", ("Float", "Double"), [((2, 3, 5, 7),), ((1, 1, 9, 11),)],
           args=(None, [1.5, 1.5]), name="scale1_5"),
    OpCase("upsample_nearest2d.vec", ("Float",), [((2, 3, 7, 9),), ((1, 1, 2, 3),)],
           args=(None, [0.5, 0.5]), name="scale0_5"),
    OpCase("upsample_nearest2d.vec", ("Float", "BFloat16"), [((2, 3, 5, 9),)],
           args=(None, [1.7, 0.4]), name="scale_mixed"),
    OpCase("upsample_nearest2d.vec", ("Float",), [((0, 3, 4, 4),)], args=([6, 6], None),
           name="empty_batch"),
    # Arguments: output_size, align_corners, scale_factors.
    *[OpCase("upsample_bilinear2d.vec", dtypes, shapes, args=(size, align, scales),
             name=f"{name}_{'align' if align else 'centres'}")
      for align in (False, True)
      for name, size, scales, dtypes, shapes in [
          ("size", [10, 13], None, FLOAT, [((2, 3, 5, 7),), ((1, 1, 4, 4),)]),
          ("smaller", [3, 2], None, ("Float", "Double"), [((2, 3, 5, 7),), ((1, 1, 4, 4),)]),
          ("same_size", [5, 7], None, ("Float",), [((2, 3, 5, 7),)]),
          ("scale2", None, [2.0, 2.0], ("Float", "Half"), [((2, 3, 5, 7),), ((1, 1, 4, 4),)]),
          ("scale1_5", None, [1.5, 1.5], ("Float", "Double"),
           [((2, 3, 5, 7),), ((1, 1, 9, 11),)]),
          ("scale0_5", None, [0.5, 0.5], ("Float", "BFloat16"),
           [((2, 3, 7, 9),), ((1, 1, 4, 4),)]),
          ("scale_mixed", None, [1.7, 0.4], ("Float",), [((2, 3, 5, 9),)]),
          ("one", [1, 1], None, ("Float",), [((2, 3, 5, 7),)])]],
    OpCase("upsample_bilinear2d.vec", ("Float",), [((2, 3, 1, 1),), ((1, 2, 1, 5),)],
           args=([4, 3], False, None), name="from_one_pixel"),
    OpCase("upsample_bilinear2d.vec", ("Float",), [((0, 3, 4, 4),)],
           args=([6, 6], True, None), name="empty_batch"),
]
