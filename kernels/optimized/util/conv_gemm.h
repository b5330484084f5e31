// Convolution as the optimized GEMM (util/gemm.h), for kernels/optimized/op_convolution.cpp.
//
// Each (batch, group) is a product: out[cout_g, plane] = weight[cout_g, depth] @
// patches[depth, plane] (+ bias per row), depth = cin_g * kh * kw and plane = out_h *
// out_w. A 1x1, stride-1 convolution's patches are its input planes as they lie, so the
// GEMM reads them in place; narrow ones of stride 1 take them from padded planes
// (ConvNarrow below). Otherwise blocks of the patch matrix (im2col), depth by columns,
// are gathered into a 64 KB panel from the kernel scratch, and the GEMM accumulates each
// depth block into out: no heap, and a panel that stays in L2 while every row tile of
// the weight runs across it.
#pragma once

#include "kernels/optimized/util/gemm.h"
#include "kernels/optimized/util/vec.h"
#include "kernels/optimized/util/window.h"
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

// Narrow outputs of stride 1 (under 16 columns: a CNN's last 7x7 stage, where Winograd
// does not take it) would gather their patches in runs of a few floats, each with its
// bounds: im2col took 10% of such a convolution. Instead the input is copied once into
// zero-padded planes, and the product runs over "wide" rows as long as the padded ones:
// output (oh, ow) is column oh * padded_w + ow, so every patch row is ONE contiguous run
// of the padded planes (offset kh * padded_w + kw), and the columns past out_w are
// computed and dropped when the wide result is copied into out (with the bias). A strip
// is 32 columns wide either way: 7 rows of 9 (61 columns) take 2 strips as 49 do.
inline constexpr int64_t kConvNarrowWidth = 16;
// Floats of scratch the padded planes and the wide result may take (2 MB).
inline constexpr int64_t kConvNarrowFloats = 512 * 1024;

struct ConvNarrow {
  int64_t padded_w = 0, padded_h = 0;
  int64_t cols = 0;  // columns of a wide row: (out_h - 1) * padded_w + out_w
  int64_t ld = 0;    // the wide result's row stride: whole strips (the GEMM's row_slack)
};

/// The padded geometry when `s` takes the narrow path (stride and dilation 1, a row of
/// under kConvNarrowWidth outputs, scratch enough), else cols == 0.
inline ConvNarrow conv_narrow(const tailor::native::ConvShape& s) {
  ConvNarrow w;
  if (s.stride_h != 1 || s.stride_w != 1 || s.dilation_h != 1 || s.dilation_w != 1 ||
      s.out_w >= kConvNarrowWidth || s.pointwise()) {
    return w;
  }
  const int64_t padded_w = s.in_w + 2 * s.pad_w;
  const int64_t padded_h = s.in_h + 2 * s.pad_h;
  const int64_t cols = (s.out_h - 1) * padded_w + s.out_w;
  const int64_t ld = (cols + kGemmMaxNr - 1) / kGemmMaxNr * kGemmMaxNr;
  if (s.in_per_group() * padded_h * padded_w + s.out_per_group() * ld <= kConvNarrowFloats) {
    w = {padded_w, padded_h, cols, ld};
  }
  return w;
}

// dst = `channels` planes of src, each inside a border of zeros (pad_h rows, pad_w
// columns) as the narrow path reads them.
struct ConvPadPlanes {
  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const ConvNarrow* narrow,
                                const float* src, int64_t channels, float* dst) {
    const tailor::native::ConvShape& s = *shape;
    for (int64_t c = 0; c < channels; ++c) {
      vec_copy_window<W>(src + c * s.in_h * s.in_w, s.in_h, s.in_w, -s.pad_h, -s.pad_w,
                         narrow->padded_h, narrow->padded_w,
                         dst + c * narrow->padded_h * narrow->padded_w);
    }
  }
};

// Rows [pc, pc + kc) and wide columns [jc, jc + nc) of the patch matrix over the padded
// planes, into `panel` (row stride nc): each a contiguous run.
struct ConvShiftedRows {
  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const ConvNarrow* narrow,
                                const float* padded, int64_t pc, int64_t kc, int64_t jc,
                                int64_t nc, float* panel) {
    const tailor::native::ConvShape& s = *shape;
    const int64_t taps = s.kernel_h * s.kernel_w;
    const int64_t plane = narrow->padded_h * narrow->padded_w;
    for (int64_t k = pc; k < pc + kc; ++k) {
      const int64_t tap = k % taps;
      const float* row = padded + (k / taps) * plane +
                         tap / s.kernel_w * narrow->padded_w + tap % s.kernel_w + jc;
      vec_copy<W>(row, panel + (k - pc) * nc, nc);
    }
  }
};

// out[o][oh][ow] = wide[o * ld + oh * padded_w + ow] + bias[o] for `channels` rows.
struct ConvCompactRows {
  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const ConvNarrow* narrow,
                                const float* wide, int64_t channels, const float* bias,
                                float* out) {
    const tailor::native::ConvShape& s = *shape;
    for (int64_t o = 0; o < channels; ++o) {
      const float b = bias != nullptr ? bias[o] : 0.0f;
      for (int64_t oh = 0; oh < s.out_h; ++oh, out += s.out_w) {
        const float* src = wide + o * narrow->ld + oh * narrow->padded_w;
        for (int64_t ow = 0; ow < s.out_w; ++ow) out[ow] = src[ow] + b;
      }
    }
  }
};

// Scratch a convolution takes from the calling thread's slice: the panel (and the narrow
// path's padded planes and wide result), and below it the GEMM's own (whose parallel
// tasks on other threads take theirs from their slices). The manifest's scratch_bytes of
// convolution must be at least this.
inline constexpr size_t kConvGemmScratchBytes =
    (kConvPanelFloats + kGemmMaxNr + kConvNarrowFloats) * sizeof(float) +
    3 * KernelScratch::kAlignment +
    kGemmScratchBytes;

// One group's product, cut into column blocks of nc_max: each gathers its patches into a
// panel, depth block by depth block, and accumulates the GEMM of each into c.
struct ConvBlockJob {
  const tailor::native::ConvShape* s;
  const ConvNarrow* narrow;
  const GemmMicroKernels* uk;
  GemmArgs g;            // the whole product
  const float* src;      // the group's input planes, or the narrow path's padded ones
  const float* bias;     // filled into a block of c first; nullptr: none (or added later)
  int64_t depth, kc_max, nc_max;
  bool failed;  // a task found too little scratch (written with an atomic store)
};

// The block of columns from jc on, through `panel`; its GEMMs over ctx's threads, or with
// `scratch` on this thread when ctx is nullptr. False when a scratch slice was too small.
inline bool conv_gemm_block(const ConvBlockJob& job, int64_t jc, KernelContext* ctx,
                            KernelScratch& scratch, float* panel) {
  const GemmArgs& g = job.g;
  const int64_t nc = gemm_min(g.n - jc, job.nc_max);
  if (job.bias != nullptr) {  // a plain fill, then every product accumulates onto it
    for (int64_t o = 0; o < g.m; ++o) {
      vec_run<ConvBiasRows>(g.c + o * g.ldc + jc, int64_t{1}, nc, job.bias + o);
    }
  }
  for (int64_t pc = 0; pc < job.depth; pc += job.kc_max) {
    const int64_t kc = gemm_min(job.depth - pc, job.kc_max);
    if (job.narrow->cols > 0) {
      vec_run<ConvShiftedRows>(job.s, job.narrow, job.src, pc, kc, jc, nc, panel);
    } else {
      vec_run<ConvIm2col>(job.s, job.src, pc, kc, jc, nc, panel);
    }
    GemmArgs block = g;
    block.n = nc;
    block.k = kc;
    block.a = g.a + pc;
    block.b = panel;
    block.ldb = nc;
    block.c = g.c + jc;
    block.accumulate = job.bias != nullptr || g.accumulate || pc > 0;  // onto the bias
    if (!(ctx != nullptr ? gemm(*ctx, block) : gemm(*job.uk, block, scratch))) return false;
  }
  return true;
}

// Task `block` of a product split by column blocks: each thread gathers its blocks into a
// panel from its own scratch slice and runs their GEMMs alone, so the gathering is split
// too and the threads meet once a product, not once a depth block.
inline void conv_gemm_block_task(void* context, int64_t block, KernelScratch& scratch) {
  ConvBlockJob& job = *static_cast<ConvBlockJob*>(context);
  float* panel = scratch.allocate<float>(kConvPanelFloats + kGemmMaxNr);
  if (panel == nullptr || !conv_gemm_block(job, block * job.nc_max, nullptr, scratch, panel)) {
    __atomic_store_n(&job.failed, true, __ATOMIC_RELAXED);
  }
}

/// out = convolution of `in` by `weight` (+ bias) for the geometry `s` (not transposed),
/// all contiguous NCHW floats, each group's product over ctx's threads (by column blocks
/// when there are two or more a thread, else each block's GEMMs); false when the calling
/// thread's scratch has less than kConvGemmScratchBytes.
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
  const ConvNarrow narrow = conv_narrow(s);
  const int64_t blocks = ((narrow.cols > 0 ? narrow.cols : plane) + nc_max - 1) / nc_max;
  const bool by_blocks = ctx.threads() > 1 && !s.pointwise() &&
                         blocks >= 2 * ctx.threads() &&
                         cout_g * plane * depth >= kGemmParallelMin;
  ScratchScope scope(ctx.scratch());
  // A strip's slack past the panel: the narrow path's products read whole strips. By
  // blocks, each task takes its own panel.
  float* panel =
      by_blocks ? nullptr : ctx.scratch().allocate<float>(kConvPanelFloats + kGemmMaxNr);
  float* padded = nullptr;
  float* wide = nullptr;
  if (narrow.cols > 0) {
    padded = ctx.scratch().allocate<float>(cin_g * narrow.padded_h * narrow.padded_w);
    wide = ctx.scratch().allocate<float>(cout_g * narrow.ld);
    if (padded == nullptr || wide == nullptr) return false;
  }
  if (panel == nullptr && !by_blocks) return false;
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t group = 0; group < s.groups; ++group) {
      const float* a = weight + group * cout_g * depth;
      const float* src = in + (n * s.in_channels + group * cin_g) * s.in_h * s.in_w;
      float* c = out + (n * s.out_channels + group * cout_g) * plane;
      const float* group_bias = bias != nullptr ? bias + group * cout_g : nullptr;
      GemmArgs g = gemm_args(cout_g, plane, depth, a, src, c);
      if (narrow.cols > 0) {  // wide rows without a bias, added by the copy into out
        vec_run<ConvPadPlanes>(&s, &narrow, src, cin_g, padded);
        g.n = narrow.cols;
        g.c = wide;
        g.ldc = narrow.ld;
        g.row_slack = true;
      }
      if (s.pointwise()) {
        if (group_bias != nullptr) {
          // The bias first, one value a row of c, then the product accumulates onto it:
          // a plain fill (rows over the threads), where a per-row bias in the GEMM would go
          // element by element.
          ctx.parallel_range(cout_g, plane, [&](int64_t r0, int64_t r1, KernelScratch&) {
            vec_run<ConvBiasRows>(c + r0 * plane, r1 - r0, plane, group_bias + r0);
          });
          g.accumulate = true;
        }
        if (!gemm(ctx, g)) return false;
        continue;
      }
      ConvBlockJob job{&s, &narrow, &gemm_micro_kernels(cpu_level()), g,
                       narrow.cols > 0 ? static_cast<const float*>(padded) : src,
                       narrow.cols > 0 ? nullptr : group_bias, depth, kc_max, nc_max, false};
      if (by_blocks) {
        ctx.parallel_for(blocks, &conv_gemm_block_task, &job);
        if (__atomic_load_n(&job.failed, __ATOMIC_RELAXED)) return false;
      } else {
        for (int64_t jc = 0; jc < g.n; jc += nc_max) {
          if (!conv_gemm_block(job, jc, &ctx, ctx.scratch(), panel)) return false;
        }
      }
      if (narrow.cols > 0) {
        vec_run<ConvCompactRows>(&s, &narrow, static_cast<const float*>(wide), cout_g,
                                 group_bias, c);
      }
    }
  }
  return true;
}

}  // namespace tailor::optimized
