// Depthwise convolution (one input channel per group: groups == in_channels, any channel
// multiplier) in Float, for kernels/optimized/op_convolution.cpp.
//
// Each output plane reads one input plane, so there is no product to hand to the GEMM:
// a depthwise layer does 9 multiply-adds per output for a 3x3 kernel, and gathering
// patches would cost more than that. Instead the input plane is copied into a buffer
// with its zero padding around it (util/window.h), and every output row runs vectors of
// columns with no bounds to check: per tap, one vector of the buffer's row (stride 2: the
// even lanes of two loads) times the tap's weight, accumulated onto the bias. Bounds
// checked one cell at a time, the padded edges of a network's 7- and 14-wide planes took
// most of the time. 3x3 and 5x5 windows of stride 1 or 2 are compiled for their size.
// Planes are split over ctx's threads.
#pragma once

#include "kernels/optimized/util/vec.h"
#include "kernels/optimized/util/window.h"
#include "kernels/portable/util/conv.h"
#include "runtime/kernel/kernel_context.h"

namespace tailor::optimized {

// Floats of one thread's scratch the padded input may take (512 KB); a larger plane is cut
// into bands of output rows, a row too wide for it into pieces of one row.
inline constexpr int64_t kConvDepthwiseFloats = 128 * 1024;
// Floats after the padded input that a row's last vector may read past it (stride 2
// reads two vectors of 16): zeros, so no stray value slows the arithmetic.
inline constexpr int64_t kConvDepthwiseSlack = 2 * 16;
inline constexpr size_t kConvDepthwiseScratchBytes =
    (kConvDepthwiseFloats + kConvDepthwiseSlack) * sizeof(float) + KernelScratch::kAlignment;

// How a plane is cut: tiles of `rows` x `cols` outputs, each reading a padded window of
// `in_rows` x `in_cols` inputs. Only a tile one row high is narrower than the plane,
// which lets a row's last vector store whole lanes past its end (see
// ConvDepthwisePlanes::columns).
struct ConvDepthwiseTiles {
  int64_t rows = 0, cols = 0;
  int64_t in_rows = 0, in_cols = 0;
};

inline int64_t conv_depthwise_span(int64_t outputs, int64_t stride, int64_t kernel,
                                   int64_t dilation) {
  return (outputs - 1) * stride + (kernel - 1) * dilation + 1;
}

/// The tiles of `s`'s planes within kConvDepthwiseFloats; rows == 0 when one output's
/// window alone does not fit (the caller then takes portable's loop).
inline ConvDepthwiseTiles conv_depthwise_tiles(const tailor::native::ConvShape& s) {
  ConvDepthwiseTiles t;
  const auto in_rows = [&](int64_t rows) {
    return conv_depthwise_span(rows, s.stride_h, s.kernel_h, s.dilation_h);
  };
  const auto in_cols = [&](int64_t cols) {
    return conv_depthwise_span(cols, s.stride_w, s.kernel_w, s.dilation_w);
  };
  constexpr int64_t budget = kConvDepthwiseFloats;
  const int64_t row_floats = in_cols(s.out_w);
  if (in_rows(1) * row_floats <= budget) {
    t.cols = s.out_w;
    t.rows = s.out_h;
    if (in_rows(t.rows) * row_floats > budget) {
      t.rows = ((budget / row_floats) - in_rows(1)) / s.stride_h + 1;
    }
  } else {
    const int64_t cols_fit = budget / in_rows(1);  // input columns
    if (cols_fit < in_cols(1)) return t;
    t.rows = 1;
    t.cols = (cols_fit - in_cols(1)) / s.stride_w + 1;
  }
  t.in_rows = in_rows(t.rows);
  t.in_cols = in_cols(t.cols);
  return t;
}

struct ConvDepthwiseJob {
  const tailor::native::ConvShape* s;
  ConvDepthwiseTiles tiles;
  const float* in;
  const float* weight;
  const float* bias;
  float* out;
};

// Output planes [first, end) (batch-major) of a K x K window of dilation 1 (K = 0: the
// shape's window), columns SW apart (SW = 0: any stride, one column at a time): `padded`
// is the thread's buffer for a tile's padded input and the slack after it. Each (K, SW)
// is a vec_run of its own (conv_depthwise_run): the seven inlined into one function took
// clang 7 minutes to compile under the sanitizers (the fuzzer's build), now 3.
template <int K, int SW>
struct ConvDepthwisePlanes {
  // A plane that is one tile has its padding at the same places in the buffer every time:
  // zeroed once, and each plane copies only its rows in.
  template <int W>
  TL_VEC_INLINE static void run(const ConvDepthwiseJob* job_ptr, int64_t first, int64_t end,
                                float* padded) {
    const ConvDepthwiseJob& job = *job_ptr;
    const tailor::native::ConvShape& s = *job.s;
    const ConvDepthwiseTiles& t = job.tiles;
    const bool whole = t.rows == s.out_h && t.cols == s.out_w;
    const int64_t floats = t.in_rows * t.in_cols;
    vec_fill<W>(whole ? padded : padded + floats, (whole ? floats : 0) + kConvDepthwiseSlack, 0.0f);
    const int64_t taps = s.kernel_h * s.kernel_w;
    const int64_t reached_rows = t.in_rows - s.pad_h < s.in_h ? t.in_rows - s.pad_h : s.in_h;
    const int64_t reached_cols = t.in_cols - s.pad_w < s.in_w ? t.in_cols - s.pad_w : s.in_w;
    for (int64_t i = first; i < end; ++i) {
      const int64_t n = i / s.out_channels;
      const int64_t oc = i % s.out_channels;
      const float* src = job.in + (n * s.in_channels + oc / s.out_per_group()) * s.in_h * s.in_w;
      const float* w = job.weight + oc * taps;
      const float bias = job.bias != nullptr ? job.bias[oc] : 0.0f;
      float* dst = job.out + i * s.out_h * s.out_w;
      if (whole) {  // the input's rows and columns the windows reach
        for (int64_t y = 0; y < reached_rows; ++y) {
          vec_copy<W>(src + y * s.in_w, padded + (y + s.pad_h) * t.in_cols + s.pad_w,
                      reached_cols);
        }
        tile<W>(s, t, padded, w, bias, dst, s.out_h, s.out_w, dst + s.out_h * s.out_w);
        continue;
      }
      for (int64_t oh0 = 0; oh0 < s.out_h; oh0 += t.rows) {
        for (int64_t ow0 = 0; ow0 < s.out_w; ow0 += t.cols) {
          vec_copy_window<W>(src, s.in_h, s.in_w, oh0 * s.stride_h - s.pad_h,
                             ow0 * s.stride_w - s.pad_w, t.in_rows, t.in_cols, padded);
          tile<W>(s, t, padded, w, bias, dst + oh0 * s.out_w + ow0,
                  oh0 + t.rows <= s.out_h ? t.rows : s.out_h - oh0,
                  ow0 + t.cols <= s.out_w ? t.cols : s.out_w - ow0, dst + s.out_h * s.out_w);
        }
      }
    }
  }

  // Output rows computed together: each its own chain of multiply-adds, so the adds of one
  // output wait on each other and no longer on those of the next vector.
  static constexpr int kRows = 4;

  // The step between the rows of a tile, and the end of the plane.
  struct Rows {
    int64_t in_step;   // floats of the padded input
    int64_t out_step;  // of out
    const float* end;
  };

  // `rows` x `cols` outputs from `out` over the tile's padded input.
  template <int W>
  TL_VEC_INLINE static void tile(const tailor::native::ConvShape& s, const ConvDepthwiseTiles& t,
                                 const float* padded, const float* w, float bias, float* out,
                                 int64_t rows, int64_t cols, const float* plane_end) {
    const Rows steps{s.stride_h * t.in_cols, s.out_w, plane_end};
    if constexpr (SW == 0) {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          out[r * s.out_w + c] =
              cell(s, padded + r * steps.in_step + c * s.stride_w, t.in_cols, w, bias);
        }
      }
    } else if (rows < kRows) {  // fewer rows than a group: one at a time
      for (int64_t r = 0; r < rows; ++r) {
        columns<W, 1>(s, padded + r * steps.in_step, t.in_cols, w, bias, out + r * s.out_w,
                      cols, steps);
      }
    } else {
      // Groups of kRows rows; the last group ends at the last row and may repeat rows of
      // the one before (the same values again).
      for (int64_t r = 0; r < rows; r += kRows) {
        const int64_t first = r + kRows <= rows ? r : rows - kRows;
        columns<W, kRows>(s, padded + first * steps.in_step, t.in_cols, w, bias,
                          out + first * s.out_w, cols, steps);
      }
    }
  }

  // `cols` outputs of R rows from `out`: whole vectors of W, then the narrowest vector
  // that covers the rest. That last vector stores all its lanes, past the row's end, when
  // they fall on outputs written after it: the next row's, stored later in this group
  // (the row's only vector) or in a later one (R == 1; only one-row tiles are narrower
  // than the plane). It stores lane by lane otherwise, and on the plane's last row.
  template <int W, int R>
  TL_VEC_INLINE static void columns(const tailor::native::ConvShape& s, const float* in,
                                    int64_t ld, const float* w, float bias, float* out,
                                    int64_t cols, const Rows& rows) {
    int64_t c = 0;
    for (; c + W <= cols; c += W) {
      vectors<W, R>(s, in + c * SW, ld, w, bias, out + c, W, false, rows);
    }
    if (c < cols) {
      tail<W, R>(s, in + c * SW, ld, w, bias, out + c, cols - c, R == 1 || c == 0, rows);
    }
  }

  template <int V, int R>
  TL_VEC_INLINE static void tail(const tailor::native::ConvShape& s, const float* in, int64_t ld,
                                 const float* w, float bias, float* out, int64_t count,
                                 bool spill, const Rows& rows) {
    if constexpr (V > 4) {
      if (count <= V / 2) {
        return tail<V / 2, R>(s, in, ld, w, bias, out, count, spill, rows);
      }
    }
    vectors<V, R>(s, in, ld, w, bias, out, count, spill, rows);
  }

  // Outputs out[0 .. V) of R rows (the first `count` of each needed; all V stored where
  // `spill` and inside the plane) whose windows start at in[0], in[SW], ...: bias plus
  // each tap in portable's order.
  template <int V, int R>
  TL_VEC_INLINE static void vectors(const tailor::native::ConvShape& s, const float* in,
                                    int64_t ld, const float* w, float bias, float* out,
                                    int64_t count, bool spill, const Rows& rows) {
    const int64_t kernel_h = K != 0 ? K : s.kernel_h;
    const int64_t kernel_w = K != 0 ? K : s.kernel_w;
    const int64_t dilation_h = K != 0 ? 1 : s.dilation_h;
    const int64_t dilation_w = K != 0 ? 1 : s.dilation_w;
    VecF<V> acc[R];
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i) acc[i] = VecF<V>{} + bias;
    const float* x[R];
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i) x[i] = in + i * rows.in_step;
    // A window row at a time (not unrolled): R row pointers, the taps at fixed offsets.
#pragma GCC unroll 1
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
#pragma GCC unroll 5
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        const float tap = w[kh * kernel_w + kw];
#pragma GCC unroll 4
        for (int i = 0; i < R; ++i) {
          VecF<V> v;
          vec_load_every<V>(x[i] + kw * dilation_w, SW, v);
          acc[i] += tap * v;
        }
      }
#pragma GCC unroll 4
      for (int i = 0; i < R; ++i) x[i] += dilation_h * ld;
    }
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i) {
      float* o = out + i * rows.out_step;
      if (count == V || (spill && o + V <= rows.end)) {
        vec_store<V>(o, acc[i]);
      } else {
        vec_store_partial<V>(o, count, acc[i]);
      }
    }
  }

  TL_VEC_INLINE static float cell(const tailor::native::ConvShape& s, const float* in,
                                  int64_t ld, const float* w, float bias) {
    float sum = bias;
    for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
        sum += w[kh * s.kernel_w + kw] * in[kh * s.dilation_h * ld + kw * s.dilation_w];
      }
    }
    return sum;
  }
};

using ConvDepthwiseRun = void (*)(const ConvDepthwiseJob*, int64_t, int64_t, float*);

template <int K, int SW>
inline constexpr ConvDepthwiseRun kConvDepthwiseRun =
    &vec_run<ConvDepthwisePlanes<K, SW>, const ConvDepthwiseJob*, int64_t, int64_t, float*>;

/// The planes' loop compiled for `s`'s window and stride.
inline ConvDepthwiseRun conv_depthwise_run(const tailor::native::ConvShape& s) {
  const bool plain = s.dilation_h == 1 && s.dilation_w == 1 && s.kernel_h == s.kernel_w;
  if (s.stride_w == 1) {
    if (plain && s.kernel_h == 3) return kConvDepthwiseRun<3, 1>;
    if (plain && s.kernel_h == 5) return kConvDepthwiseRun<5, 1>;
    return kConvDepthwiseRun<0, 1>;
  }
  if (s.stride_w == 2) {
    if (plain && s.kernel_h == 3) return kConvDepthwiseRun<3, 2>;
    if (plain && s.kernel_h == 5) return kConvDepthwiseRun<5, 2>;
    return kConvDepthwiseRun<0, 2>;
  }
  return kConvDepthwiseRun<0, 0>;
}

/// out = the depthwise convolution of `in` (s.in_per_group() == 1, not transposed), all
/// contiguous NCHW floats, its planes over ctx's threads. False when a thread's scratch
/// had less room than kConvDepthwiseScratchBytes.
inline bool conv_depthwise_float(KernelContext& ctx, const tailor::native::ConvShape& s,
                                 const float* in, const float* weight, const float* bias,
                                 float* out) {
  const ConvDepthwiseJob job{&s, conv_depthwise_tiles(s), in, weight, bias, out};
  if (job.tiles.rows == 0) {  // a window of over kConvDepthwiseFloats inputs
    tailor::native::conv_direct(s, in, weight, bias, out);
    return true;
  }
  const int64_t floats = job.tiles.in_rows * job.tiles.in_cols + kConvDepthwiseSlack;
  const ConvDepthwiseRun run = conv_depthwise_run(s);
  bool failed = false;
  ctx.parallel_range(s.batch * s.out_channels, s.out_h * s.out_w * s.kernel_h * s.kernel_w,
                     [&](int64_t first, int64_t end, KernelScratch& scratch) {
                       float* padded = scratch.allocate<float>(floats);
                       if (padded == nullptr) {
                         __atomic_store_n(&failed, true, __ATOMIC_RELAXED);
                         return;
                       }
                       run(&job, first, end, padded);
                     });
  return !__atomic_load_n(&failed, __ATOMIC_RELAXED);
}

}  // namespace tailor::optimized
