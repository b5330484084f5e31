// Depthwise convolution (one input channel per group: groups == in_channels, any channel
// multiplier) in Float, for kernels/optimized/op_convolution.cpp.
//
// Each output plane reads one input plane, so there is no product to hand to the GEMM:
// a depthwise layer does 9 multiply-adds per output for a 3x3 kernel, and gathering
// patches would cost more than that. Instead each output row runs W columns at a time
// (util/vec.h), then W / 2, ... down to 4: per tap, one vector of the input row (stride 2: the even lanes of two
// loads) times the tap's weight, accumulated onto the bias. Columns whose window crosses
// the padding, and strides past 2, go one at a time. Planes are split over ctx's threads.
#pragma once

#include "kernels/optimized/util/gemm.h"  // kGemmParallelMin: when threads pay
#include "kernels/optimized/util/vec.h"
#include "kernels/optimized/util/window.h"
#include "kernels/portable/util/conv.h"
#include "runtime/kernel/kernel_context.h"

namespace tailor::optimized {

// One output cell at (oh, ow) of a plane: bias plus its taps inside the input, in the
// order portable's direct loop adds them.
inline float conv_depthwise_cell(const tailor::native::ConvShape& s, const float* src,
                                 const float* w, float bias, int64_t oh, int64_t ow) {
  float sum = bias;
  for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
    const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dilation_h;
    if (ih < 0 || ih >= s.in_h) continue;
    for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
      const int64_t iw = ow * s.stride_w - s.pad_w + kw * s.dilation_w;
      if (iw >= 0 && iw < s.in_w) sum += w[kh * s.kernel_w + kw] * src[ih * s.in_w + iw];
    }
  }
  return sum;
}

// One output plane: `src` its input plane, `w` its kernel_h x kernel_w taps.
struct ConvDepthwisePlane {
  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const float* src,
                                const float* w, float bias, float* dst, InnerColumns inner) {
    const tailor::native::ConvShape& s = *shape;
    for (int64_t oh = 0; oh < s.out_h; ++oh) {
      float* row_out = dst + oh * s.out_w;
      int64_t ow = 0;
      for (; ow < inner.begin; ++ow) row_out[ow] = conv_depthwise_cell(s, src, w, bias, oh, ow);
      ow = columns<W>(s, src, w, bias, row_out, oh, ow, inner.end);
      for (; ow < s.out_w; ++ow) row_out[ow] = conv_depthwise_cell(s, src, w, bias, oh, ow);
    }
  }

  // Columns from `ow` of output row `oh` by vectors of W while they fit before `end`,
  // then by halves of them down to 4 lanes (the 14- and 7-wide planes of a network's
  // last stages fit no vector of 16); returns the first column left.
  template <int W>
  TL_VEC_INLINE static int64_t columns(const tailor::native::ConvShape& s, const float* src,
                                       const float* w, float bias, float* row_out, int64_t oh,
                                       int64_t ow, int64_t end) {
    const int64_t span = (s.kernel_w - 1) * s.dilation_w;
    for (; ow + W <= end; ow += W) {
      const int64_t x0 = ow * s.stride_w - s.pad_w;  // lane 0's first column
      if (!window_vector_fits(x0, span, s.stride_w, W, s.in_w)) break;
      VecF<W> acc = VecF<W>{} + bias;
      for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
        const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dilation_h;
        if (ih < 0 || ih >= s.in_h) continue;
        const float* row = src + ih * s.in_w + x0;
        for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
          VecF<W> v;
          vec_load_every<W>(row + kw * s.dilation_w, s.stride_w, v);
          acc += w[kh * s.kernel_w + kw] * v;
        }
      }
      vec_store<W>(row_out + ow, acc);
    }
    if constexpr (W > 4) {
      return columns<W / 2>(s, src, w, bias, row_out, oh, ow, end);
    } else {
      return ow;
    }
  }
};

struct ConvDepthwiseJob {
  const tailor::native::ConvShape* s;
  const float* in;
  const float* weight;
  const float* bias;
  float* out;
  InnerColumns inner;
};

// Task i: output plane i (batch-major).
inline void conv_depthwise_task(void* context, int64_t i, ::tailor::KernelScratch& /*unused*/) {
  const ConvDepthwiseJob& job = *static_cast<const ConvDepthwiseJob*>(context);
  const tailor::native::ConvShape& s = *job.s;
  const int64_t n = i / s.out_channels;
  const int64_t oc = i % s.out_channels;
  const int64_t ic = oc / s.out_per_group();
  const int64_t taps = s.kernel_h * s.kernel_w;
  vec_run<ConvDepthwisePlane>(job.s, job.in + (n * s.in_channels + ic) * s.in_h * s.in_w,
                              job.weight + oc * taps, job.bias != nullptr ? job.bias[oc] : 0.0f,
                              job.out + i * s.out_h * s.out_w, job.inner);
}

/// out = the depthwise convolution of `in` (s.in_per_group() == 1, not transposed), all
/// contiguous NCHW floats, its planes over ctx's threads.
inline void conv_depthwise_float(KernelContext& ctx, const tailor::native::ConvShape& s,
                                 const float* in, const float* weight, const float* bias,
                                 float* out) {
  ConvDepthwiseJob job{&s, in, weight, bias, out,
                       window_inner_columns(s.in_w, s.out_w, s.kernel_w, s.stride_w, s.pad_w,
                                            s.dilation_w)};
  if (s.stride_w > 2) job.inner.begin = job.inner.end = s.out_w;
  const int64_t planes = s.batch * s.out_channels;
  const int64_t work = planes * s.out_h * s.out_w * s.kernel_h * s.kernel_w;
  if (ctx.threads() > 1 && planes > 1 && work >= kGemmParallelMin) {
    ctx.parallel_for(planes, &conv_depthwise_task, &job);
    return;
  }
  for (int64_t i = 0; i < planes; ++i) conv_depthwise_task(&job, i, ctx.scratch());
}

}  // namespace tailor::optimized
