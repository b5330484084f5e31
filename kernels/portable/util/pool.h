// Shared by the 2-d pooling kernels (max_pool2d_with_indices, avg_pool2d and the adaptive
// ones): the input seen as independent H x W planes, torch's `int[2]` arguments, its
// output size rule and its adaptive window bounds.
#pragma once

#include "kernels/portable/util/minmax.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Values above this are refused, so window arithmetic on them cannot overflow int64.
inline constexpr int64_t kMaxPoolParam = 0x7fffffff;

// A 3-d (C, H, W) or 4-d (N, C, H, W) pooling input and its output sizes.
struct PoolPlanes {
  int64_t planes = 0;  // N * C (or C): H x W images pooled independently
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t rank = 0;
  int64_t out_sizes[4] = {};  // filled by set_out()

  // The output sizes: the input's leading dims, then out_h x out_w.
  IntArrayRef set_out(const Tensor& in, int64_t out_h, int64_t out_w) {
    for (int64_t d = 0; d + 2 < rank; ++d) {
      out_sizes[d] = in.size(d);
    }
    out_sizes[rank - 2] = out_h;
    out_sizes[rank - 1] = out_w;
    return IntArrayRef(out_sizes, rank);
  }
};

// Reads a pooling input; returns what is wrong with it, or nullptr. As in torch, only a
// 4-d input's batch may be empty, and with `empty_3d_channels` (adaptive pooling) also
// a 3-d input's channels.
inline const char* read_pool_input(const Tensor& in, bool empty_3d_channels, PoolPlanes* p) {
  p->rank = in.dim();
  if (p->rank != 3 && p->rank != 4) {
    return "input must be 3-d (C, H, W) or 4-d (N, C, H, W)";
  }
  const int64_t first_nonempty = (p->rank == 4 || empty_3d_channels) ? 1 : 0;
  for (int64_t d = first_nonempty; d < p->rank; ++d) {
    if (in.size(d) == 0) {
      return "input has an empty channel or spatial dim";
    }
  }
  p->in_h = in.size(p->rank - 2);
  p->in_w = in.size(p->rank - 1);
  p->planes = p->rank == 4 ? in.size(0) * in.size(1) : in.size(0);
  return nullptr;
}

// One `int[2]` argument of torch's pooling ops: one value applies to both dims, two are
// (h, w); an empty list takes `fallback_h/w` (how stride defaults to the kernel size).
// False for any other length.
inline bool read_pool_pair(IntArrayRef v, int64_t fallback_h, int64_t fallback_w,
                           int64_t* h, int64_t* w) {
  if (v.size() > 2) {
    return false;
  }
  *h = v.size() == 0 ? fallback_h : v[0];
  *w = v.size() == 0 ? fallback_w : v[v.size() - 1];
  return true;
}

// Division rounding toward negative infinity (b > 0).
inline int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (q * b != a && a < 0) ? q - 1 : q;
}

// Window geometry of max and average pooling, per spatial dim.
struct PoolWindow {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t out_h = 0, out_w = 0;
};

// Output length of one dim as torch computes it: taps `dilation` apart, windows every
// `stride` over the input padded by `pad` on both sides. ceil_mode keeps a last partial
// window only if it starts inside the input or the left padding.
inline int64_t pooled_length(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                             int64_t dilation, bool ceil_mode) {
  int64_t out = floor_div(in + 2 * pad - dilation * (kernel - 1) - 1 +
                              (ceil_mode ? stride - 1 : 0),
                          stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) {
    --out;
  }
  return out;
}

// Reads kernel_size, stride, padding and dilation (pass {1} for ops without one) and
// computes the output size; returns what is wrong, or nullptr. Torch's rules: positive
// kernel, stride and dilation, padding at most half the kernel, a non-empty output.
inline const char* read_pool_window(const PoolPlanes& in, IntArrayRef kernel_size,
                                    IntArrayRef stride, IntArrayRef padding,
                                    IntArrayRef dilation, bool ceil_mode, PoolWindow* w) {
  if (kernel_size.empty() || !read_pool_pair(kernel_size, 0, 0, &w->kernel_h, &w->kernel_w) ||
      !read_pool_pair(stride, w->kernel_h, w->kernel_w, &w->stride_h, &w->stride_w) ||
      padding.empty() || !read_pool_pair(padding, 0, 0, &w->pad_h, &w->pad_w) ||
      dilation.empty() || !read_pool_pair(dilation, 1, 1, &w->dilation_h, &w->dilation_w)) {
    return "kernel_size, padding and dilation need 1 or 2 values, stride 0, 1 or 2";
  }
  if (w->kernel_h <= 0 || w->kernel_w <= 0 || w->kernel_h > kMaxPoolParam ||
      w->kernel_w > kMaxPoolParam) {
    return "kernel_size must be in [1, 2^31)";
  }
  if (w->stride_h <= 0 || w->stride_w <= 0 || w->stride_h > kMaxPoolParam ||
      w->stride_w > kMaxPoolParam) {
    return "stride must be in [1, 2^31)";
  }
  if (w->dilation_h <= 0 || w->dilation_w <= 0 || w->dilation_h > kMaxPoolParam ||
      w->dilation_w > kMaxPoolParam) {
    return "dilation must be in [1, 2^31)";
  }
  if (w->pad_h < 0 || w->pad_w < 0 || w->pad_h > w->kernel_h / 2 ||
      w->pad_w > w->kernel_w / 2) {
    return "padding must be between 0 and half the kernel size";
  }
  w->out_h = pooled_length(in.in_h, w->kernel_h, w->stride_h, w->pad_h, w->dilation_h,
                           ceil_mode);
  w->out_w = pooled_length(in.in_w, w->kernel_w, w->stride_w, w->pad_w, w->dilation_w,
                           ceil_mode);
  if (w->out_h <= 0 || w->out_w <= 0) {
    return "the window does not fit the padded input: output size would be <= 0";
  }
  return nullptr;
}

// Adaptive pooling: output cell i of n over an input dim of `in` covers
// [floor(i * in / n), ceil((i + 1) * in / n)), computed without overflow for in, n < 2^31.
inline int64_t adaptive_start(int64_t i, int64_t n, int64_t in) {
  return (i / n) * in + ((i % n) * in) / n;
}
inline int64_t adaptive_end(int64_t i, int64_t n, int64_t in) {
  return 1 + ((i + 1) * in - 1) / n;
}

// Reads an adaptive pooling call: its input (see read_pool_input) and output_size;
// returns what is wrong, or nullptr. A zero size is allowed (an empty output), as in torch.
inline const char* read_adaptive_pool(const Tensor& self, IntArrayRef output_size,
                                      PoolPlanes* in, int64_t* out_h, int64_t* out_w) {
  const char* problem = read_pool_input(self, true, in);
  if (problem != nullptr) {
    return problem;
  }
  if (output_size.size() != 2) {
    return "output_size must have 2 values";
  }
  *out_h = output_size[0];
  *out_w = output_size[1];
  if (*out_h < 0 || *out_w < 0 || *out_h > kMaxPoolParam || *out_w > kMaxPoolParam) {
    return "output_size must be in [0, 2^31)";
  }
  return nullptr;
}

// Calls f(src, cell, h0, h1, w0, w1) for every output cell of adaptive pooling: `src` is
// its input plane (in_h x in_w, starting at `data`), `cell` its index in the output, and
// rows [h0, h1) by columns [w0, w1) its window.
template <typename T, typename F>
void for_each_adaptive_window(const PoolPlanes& in, const T* data, int64_t out_h,
                              int64_t out_w, F&& f) {
  for (int64_t p = 0; p < in.planes; ++p) {
    const T* src = data + p * in.in_h * in.in_w;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      const int64_t h0 = adaptive_start(oh, out_h, in.in_h);
      const int64_t h1 = adaptive_end(oh, out_h, in.in_h);
      for (int64_t ow = 0; ow < out_w; ++ow) {
        f(src, (p * out_h + oh) * out_w + ow, h0, h1, adaptive_start(ow, out_w, in.in_w),
          adaptive_end(ow, out_w, in.in_w));
      }
    }
  }
}

}  // namespace tailor::native
