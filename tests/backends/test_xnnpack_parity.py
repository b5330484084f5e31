"""Rules the XNNPACK partitioner (Python) and the C++ side both apply, compared over grids
of shapes through a compiled probe: a change to one side alone fails here.

- Winograd: the partitioner leaves to the optimized kernels the convolutions they run by
  Winograd (policy.winograd_fits); the kernel decides by winograd_fits() in
  kernels/optimized/util/conv_winograd_plan.h, with its filters transformed at load (a
  delegated convolution's weight is a constant, so it is prepacked) and, by a narrower
  rule, not.
- Channels-last reshapes: the partitioner delegates a reshape only when it moves no
  element (layout.reshape_keeps_memory); the delegate checks the payload by
  reshape_keeps_memory() in backends/xnnpack/runtime/xnnpack_shapes.h.
- Pooling windows: the portable kernels size a pooling's output by pooled_length()
  (kernels/portable/util/pool.h) and the delegate by window_count() (xnnpack_shapes.h),
  both as torch does; an adaptive pooling is delegated as a fixed window of
  support.adaptive_window() cells, which must cover what the kernel's adaptive windows
  (adaptive_start/end) cover.
"""

import itertools
import math

import torch

from backends.xnnpack import layout, policy, support
from tests.cxx_probe import run_probe

_WINOGRAD_PROBE = r"""
#include <stdio.h>
#include "kernels/optimized/util/conv_winograd.h"

int main() {
  tailor::native::ConvShape s;
  long long v[10];
  while (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2],
               &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) == 10) {
    s = tailor::native::ConvShape{};
    s.batch = 1;
    s.in_channels = v[0];
    s.out_channels = v[1];
    s.kernel_h = v[2];
    s.kernel_w = v[3];
    s.stride_h = s.stride_w = v[4];
    s.dilation_h = s.dilation_w = v[5];
    s.groups = v[6];
    s.out_h = v[7];
    s.out_w = v[8];
    s.in_h = s.out_h + 2;
    s.in_w = s.out_w + 2;
    printf("%d\n", tailor::optimized::winograd_fits(s, v[9] != 0) ? 1 : 0);
  }
  return 0;
}
"""

_RESHAPE_PROBE = r"""
#include <stdio.h>
#include "backends/xnnpack/runtime/xnnpack_shapes.h"

using tailor::xnnpack::Dims;

static bool read(Dims* d, int* cl) {
  if (scanf("%zu", &d->rank) != 1) return false;
  for (size_t i = 0; i < d->rank; ++i) {
    if (scanf("%zu", &d->size[i]) != 1) return false;
  }
  return scanf("%d", cl) == 1;
}

int main() {
  Dims a, b;
  int a_cl, b_cl;
  while (read(&a, &a_cl) && read(&b, &b_cl)) {
    printf("%d\n", tailor::xnnpack::reshape_keeps_memory(a, a_cl, b, b_cl) ? 1 : 0);
  }
  return 0;
}
"""


def _winograd_grid():
    channels = (1, 16, 31, 32, 64, 255, 256, 257, 512)
    kernels = ((3, 3), (1, 1), (3, 1), (5, 5))
    # 192/194 and 320/322 and 512/514: either side of a width limit (512 channels on rows
    # of 96 tiles; the scratch of one tile row at 256 channels, and at any).
    outputs = (1, 6, 7, 8, 11, 14, 28, 56, 112, 192, 194, 224, 320, 322, 512, 514)
    for cin, cout, kernel, stride, dilation, groups in itertools.product(
            channels, channels, kernels, (1, 2), (1, 2), (1, 2)):
        for out_h, out_w in itertools.product(outputs, outputs):
            yield cin, cout, kernel, stride, dilation, groups, out_h, out_w


def test_the_partitioner_and_the_kernel_agree_on_winograd(tmp_path):
    grid = list(_winograd_grid())
    lines = []
    for cin, cout, (kh, kw), stride, dilation, groups, out_h, out_w in grid:
        for packed in (1, 0):
            lines.append(f"{cin} {cout} {kh} {kw} {stride} {dilation} {groups} {out_h} {out_w} "
                         f"{packed}")
    answers = run_probe(tmp_path, _WINOGRAD_PROBE, "\n".join(lines) + "\n").split()
    assert len(answers) == 2 * len(grid)
    assert "1" in answers and "0" in answers  # the grid crosses the rule's borders
    for k, (cin, cout, kernel, stride, dilation, groups, out_h, out_w) in enumerate(grid):
        python = policy.winograd_fits(cin, cout, kernel, (stride, stride),
                                      (dilation, dilation), groups, out_h, out_w)
        shape = (f"cin {cin} cout {cout} kernel {kernel} stride {stride} dilation "
                 f"{dilation} groups {groups} out {out_h}x{out_w}")
        assert answers[2 * k] == str(int(python)), "prepacked filters: " + shape
        # Filters transformed per call: a narrower rule (no U block fits the scratch
        # beside a band of more than 256 channels; the transform pays off from 32 tiles),
        # and on the widest outputs the U block leaves no room for a row of tiles.
        per_call = python and cin <= 256 and (out_h + 1) // 2 * ((out_w + 1) // 2) >= 32
        where = "filters transformed per call: " + shape
        if out_w <= 224:
            assert answers[2 * k + 1] == str(int(per_call)), where
        else:
            assert per_call or answers[2 * k + 1] == "0", where


def _nchw_shapes():
    for rank in (3, 4):
        for sizes in itertools.product((1, 2, 3), repeat=rank):
            yield list(sizes)


def test_the_partitioner_and_the_delegate_agree_on_channels_last_reshapes(tmp_path):
    # Channels-last tensors are [N, C, L] or [N, C, H, W]; a reshape keeps their count.
    shapes = list(_nchw_shapes())
    cases = [(a, a_cl, b, b_cl) for a in shapes for b in shapes
             if math.prod(a) == math.prod(b) for a_cl in (0, 1) for b_cl in (0, 1)]
    text = "".join(f"{len(a)} {' '.join(map(str, a))} {a_cl} {len(b)} {' '.join(map(str, b))} "
                   f"{b_cl}\n" for a, a_cl, b, b_cl in cases)
    answers = run_probe(tmp_path, _RESHAPE_PROBE, text).split()
    assert len(answers) == len(cases)
    assert "1" in answers and "0" in answers
    for answer, (a, a_cl, b, b_cl) in zip(answers, cases):
        python = layout.reshape_keeps_memory(a, bool(a_cl), b, bool(b_cl))
        assert answer == str(int(python)), (a, a_cl, b, b_cl)



_POOL_PROBE = r"""
#include <stdio.h>
#include "backends/xnnpack/runtime/xnnpack_shapes.h"
#include "kernels/portable/util/pool.h"

int main() {
  long long in, k, s, pad, d, ceil_mode;
  while (scanf("%lld %lld %lld %lld %lld %lld", &in, &k, &s, &pad, &d, &ceil_mode) == 6) {
    const long long kernel = tailor::native::pooled_length(in, k, s, pad, d, ceil_mode != 0);
    const size_t delegate = tailor::xnnpack::window_count(in, k, s, d, pad, pad, ceil_mode != 0);
    printf("%lld %zu\n", kernel > 0 ? kernel : 0, delegate);
  }
  return 0;
}
"""

_ADAPTIVE_PROBE = r"""
#include <stdio.h>
#include "kernels/portable/util/pool.h"

int main() {
  long long in, n;
  while (scanf("%lld %lld", &in, &n) == 2) {
    for (long long i = 0; i < n; ++i) {
      printf("%lld %lld ", tailor::native::adaptive_start(i, n, in),
             tailor::native::adaptive_end(i, n, in));
    }
    printf("\n");
  }
  return 0;
}
"""


def _torch_pooled_length(size, kernel, stride, pad, dilation, ceil_mode) -> int:
    try:
        return torch.nn.functional.max_pool1d(
            torch.zeros(1, 1, size), kernel, stride, pad, dilation, bool(ceil_mode)).shape[-1]
    except RuntimeError:  # torch: "Output size is too small"
        return 0


def test_the_kernels_and_the_delegate_size_pooling_windows_as_torch(tmp_path):
    # torch takes padding up to half the kernel; the grid crosses ceil_mode's last-window
    # rule and windows that do not fit.
    grid = [(size, kernel, stride, pad, dilation, ceil_mode)
            for size, kernel, stride, dilation, ceil_mode in itertools.product(
                range(1, 13), range(1, 6), range(1, 4), (1, 2), (0, 1))
            for pad in range(kernel // 2 + 1)]
    answers = run_probe(tmp_path, _POOL_PROBE,
                        "".join("%d %d %d %d %d %d\n" % case for case in grid)).splitlines()
    assert len(answers) == len(grid)
    for (kernel_side, delegate), case in zip((a.split() for a in answers), grid):
        want = _torch_pooled_length(*case)
        shape = "in %d kernel %d stride %d pad %d dilation %d ceil_mode %d" % case
        assert int(kernel_side) == want, "pooled_length (portable kernels): " + shape
        assert int(delegate) == want, "window_count (XNNPACK delegate): " + shape
    assert any(_torch_pooled_length(*case) == 0 for case in grid)


def test_a_delegated_adaptive_pooling_covers_the_kernels_windows(tmp_path):
    pairs = [(size, n) for size in range(1, 25) for n in range(1, size + 1)]
    answers = run_probe(tmp_path, _ADAPTIVE_PROBE,
                        "".join("%d %d\n" % pair for pair in pairs)).splitlines()
    assert len(answers) == len(pairs)
    delegated = 0
    for (size, n), line in zip(pairs, answers):
        bounds = list(map(int, line.split()))
        windows = list(zip(bounds[::2], bounds[1::2]))
        window = support.adaptive_window(size, n)
        alike = len({end - start for start, end in windows}) == 1 and all(
            start == i * (end - start) for i, (start, end) in enumerate(windows))
        # Delegated exactly when the kernel's windows are one fixed window, strided by
        # itself, and then that window is the kernel's.
        assert bool(window) == alike, (size, n, windows)
        if window:
            delegated += 1
            assert windows == [(i * window, (i + 1) * window) for i in range(n)], (size, n)
    assert 0 < delegated < len(pairs)
