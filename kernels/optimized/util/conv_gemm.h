// Convolution as the optimized GEMM (util/gemm.h), for kernels/optimized/op_convolution.cpp.
//
// Each (batch, group) is a product: out[cout_g, plane] = weight[cout_g, depth] @
// patches[depth, plane] (+ bias per row), depth = cin_g * kh * kw and plane = out_h *
// out_w. A 1x1, stride-1 convolution's patches are its input planes as they lie, so the
// GEMM reads them in place. Otherwise blocks of the patch matrix (im2col), depth by
// columns, are gathered into a 64 KB panel from the kernel scratch, and the GEMM
// accumulates each depth block into out: no heap, and a panel that stays in L2 while every row tile of the
// weight runs across it.
#pragma once

#include "kernels/optimized/util/gemm.h"
#include "kernels/optimized/util/vec.h"
#include "kernels/portable/util/conv.h"

namespace tailor::optimized {

// The panel: depth block (at most kGemmDepth) times columns.
inline constexpr int64_t kConvPanelFloats = 16 * 1024;

// Gathers rows [pc, pc + kc) (row = (ic, kh, kw)) and columns [jc, jc + nc) (column =
// (oh, ow)) of one group's patch matrix into `panel` (row stride nc); taps in the padding
// are zeros. `src` is the group's first input plane. Copies and zeros go by vectors
// (util/vec.h: a memcpy call per run of an output row cost more than the run), and the
// row's (ic, kh, kw) and the runs' bounds are stepped, not divided, for stride 1.
struct ConvIm2col {
  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const float* src,
                                int64_t pc, int64_t kc, int64_t jc, int64_t nc, float* panel) {
    using tailor::native::conv_ceil_div;
    const tailor::native::ConvShape& s = *shape;
    const int64_t taps = s.kernel_h * s.kernel_w;
    int64_t ic = pc / taps;
    int64_t kh = (pc % taps) / s.kernel_w;
    int64_t kw = pc % s.kernel_w;
    const int64_t oh0 = jc / s.out_w;
    const int64_t ow0 = jc % s.out_w;
    for (int64_t k = 0; k < kc; ++k) {
      const float* plane = src + ic * s.in_h * s.in_w;
      float* dst = panel + k * nc;
      int64_t oh = oh0;
      int64_t ow = ow0;
      // One output row's run of columns at a time: they read one input row.
      for (int64_t j = 0; j < nc; j += gemm_min(nc - j, s.out_w - ow), ow = 0, ++oh) {
        const int64_t run = gemm_min(nc - j, s.out_w - ow);
        const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dilation_h;
        float* out = dst + j;
        if (ih < 0 || ih >= s.in_h) {
          vec_fill<W>(out, run, 0.0f);
          continue;
        }
        const float* in_row = plane + ih * s.in_w;
        // Column t reads in_row[iw0 + t * stride]: inside the row for t in [lo, hi).
        const int64_t iw0 = ow * s.stride_w - s.pad_w + kw * s.dilation_w;
        int64_t lo, past;
        if (s.stride_w == 1) {
          lo = iw0 >= 0 ? 0 : -iw0;
          past = s.in_w - iw0;
        } else if (s.stride_w == 2) {  // ceil(a / 2) by a shift: a division costs more
          lo = iw0 >= 0 ? 0 : (1 - iw0) >> 1;  // than the short runs of a strided 7x7
          past = (s.in_w - iw0 + 1) >> 1;
        } else {
          lo = iw0 >= 0 ? 0 : conv_ceil_div(-iw0, s.stride_w);
          past = conv_ceil_div(s.in_w - iw0, s.stride_w);
        }
        lo = gemm_min(run, lo);
        const int64_t hi = past < lo ? lo : gemm_min(run, past);
        vec_fill<W>(out, lo, 0.0f);
        vec_copy_every<W>(in_row + iw0 + lo * s.stride_w, s.stride_w,
                          s.in_w - iw0 - lo * s.stride_w, out + lo, hi - lo);
        vec_fill<W>(out + hi, run - hi, 0.0f);
      }
      if (++kw == s.kernel_w) {
        kw = 0;
        if (++kh == s.kernel_h) {
          kh = 0;
          ++ic;
        }
      }
    }
  }
};

// rows x cols floats of c, row r filled with bias[r].
struct ConvBiasRows {
  template <int W>
  TL_VEC_INLINE static void run(float* c, int64_t rows, int64_t cols, const float* bias) {
    for (int64_t r = 0; r < rows; ++r) vec_fill<W>(c + r * cols, cols, bias[r]);
  }
};

// Scratch a convolution takes from the calling thread's slice: the panel, and below it
// the GEMM's own (whose parallel tasks on other threads take theirs from their slices).
// The manifest's scratch_bytes of convolution must be at least this.
inline constexpr size_t kConvGemmScratchBytes =
    kConvPanelFloats * sizeof(float) + KernelScratch::kAlignment + kGemmScratchBytes;

/// out = convolution of `in` by `weight` (+ bias) for the geometry `s` (not transposed),
/// all contiguous NCHW floats, each group's product over ctx's threads; false when the
/// calling thread's scratch has less than kConvGemmScratchBytes.
inline bool conv_gemm_float(KernelContext& ctx, const tailor::native::ConvShape& s,
                            const float* in, const float* weight, const float* bias,
                            float* out) {
  const int64_t cin_g = s.in_per_group();
  const int64_t cout_g = s.out_per_group();
  const int64_t depth = cin_g * s.kernel_h * s.kernel_w;
  const int64_t plane = s.out_h * s.out_w;
  const int64_t kc_max = gemm_min(depth, kGemmDepth);
  // Whole strips of the widest tile (a multiple of every level's): a block of 111
  // columns (a 7x7 convolution over 3 channels) would end each block on a ragged strip,
  // computed full width and copied through the edge tile.
  const int64_t nc_max = kConvPanelFloats / kc_max / kGemmMaxNr * kGemmMaxNr;
  ScratchScope scope(ctx.scratch());
  float* panel = ctx.scratch().allocate<float>(kConvPanelFloats);
  if (panel == nullptr) return false;
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t group = 0; group < s.groups; ++group) {
      const float* a = weight + group * cout_g * depth;
      const float* src = in + (n * s.in_channels + group * cin_g) * s.in_h * s.in_w;
      float* c = out + (n * s.out_channels + group * cout_g) * plane;
      GemmArgs g = gemm_args(cout_g, plane, depth, a, src, c);
      // The bias first, one value a row of c, then every product accumulates onto it:
      // a plain fill, where a per-row bias in the GEMM would go element by element.
      if (bias != nullptr) {
        vec_run<ConvBiasRows>(c, cout_g, plane, bias + group * cout_g);
        g.accumulate = true;
      }
      if (s.pointwise()) {
        if (!gemm(ctx, g)) return false;
        continue;
      }
      for (int64_t jc = 0; jc < plane; jc += nc_max) {
        const int64_t nc = gemm_min(plane - jc, nc_max);
        for (int64_t pc = 0; pc < depth; pc += kc_max) {
          const int64_t kc = gemm_min(depth - pc, kc_max);
          vec_run<ConvIm2col>(&s, src, pc, kc, jc, nc, panel);
          GemmArgs block = g;
          block.n = nc;
          block.k = kc;
          block.a = a + pc;
          block.b = panel;
          block.ldb = nc;
          block.c = c + jc;
          block.accumulate = g.accumulate || pc > 0;  // onto the bias, earlier blocks
          if (!gemm(ctx, block)) return false;
        }
      }
    }
  }
  return true;
}

}  // namespace tailor::optimized
