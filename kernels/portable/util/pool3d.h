// Shared by the 3-d pooling kernels (max_pool3d_with_indices, avg_pool3d): the input
// seen as independent D x H x W volumes, torch's `int[3]` arguments and its output size
// rule (util/pool.h's, per dim).
#pragma once

#include "kernels/portable/util/pool.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// A 4-d (C, D, H, W) or 5-d (N, C, D, H, W) pooling input, its window and output sizes;
// index 0, 1, 2 of each array is depth, height, width.
struct Pool3d {
  int64_t planes = 0;  // N * C (or C) volumes pooled independently
  int64_t rank = 0;
  int64_t in[3] = {};
  int64_t kernel[3] = {};
  int64_t stride[3] = {};
  int64_t pad[3] = {};
  int64_t dilation[3] = {1, 1, 1};
  int64_t out[3] = {};
  int64_t out_sizes[5] = {};

  int64_t in_volume() const { return in[0] * in[1] * in[2]; }
  int64_t out_volume() const { return out[0] * out[1] * out[2]; }
  IntArrayRef sizes() const { return IntArrayRef(out_sizes, rank); }
};

// One `int[3]` argument: one value for all three dims, or three; an empty list (stride's
// default) takes `fallback`. False for any other length.
inline bool read_pool_triple(IntArrayRef v, const int64_t* fallback, int64_t* into) {
  if (v.size() == 0 && fallback != nullptr) {
    for (int d = 0; d < 3; ++d) into[d] = fallback[d];
    return true;
  }
  if (v.size() != 1 && v.size() != 3) {
    return false;
  }
  for (size_t d = 0; d < 3; ++d) into[d] = v[v.size() == 1 ? 0 : d];
  return true;
}

// Reads a 3-d pooling call (pass {1} as `dilation` for ops without one); returns what is
// wrong, or nullptr. Torch's rules: only a 5-d input's batch may be empty; positive
// kernel, stride and dilation, padding at most half the kernel, a non-empty output.
inline const char* read_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                               IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                               Pool3d* p) {
  p->rank = self.dim();
  if (p->rank != 4 && p->rank != 5) {
    return "input must be 4-d (C, D, H, W) or 5-d (N, C, D, H, W)";
  }
  for (int64_t d = p->rank == 5 ? 1 : 0; d < p->rank; ++d) {
    if (self.size(d) == 0) {
      return "input has an empty channel or spatial dim";
    }
  }
  if (!read_pool_triple(kernel_size, nullptr, p->kernel) ||
      !read_pool_triple(stride, p->kernel, p->stride) ||
      !read_pool_triple(padding, nullptr, p->pad) ||
      !read_pool_triple(dilation, nullptr, p->dilation)) {
    return "kernel_size, padding and dilation need 1 or 3 values, stride 0, 1 or 3";
  }
  p->planes = 1;
  for (int64_t d = 0; d + 3 < p->rank; ++d) {
    p->planes *= self.size(d);
    p->out_sizes[d] = self.size(d);
  }
  for (int d = 0; d < 3; ++d) {
    if (p->kernel[d] <= 0 || p->kernel[d] > kMaxPoolParam || p->stride[d] <= 0 ||
        p->stride[d] > kMaxPoolParam || p->dilation[d] <= 0 ||
        p->dilation[d] > kMaxPoolParam) {
      return "kernel_size, stride and dilation must be in [1, 2^31)";
    }
    if (p->pad[d] < 0 || p->pad[d] > p->kernel[d] / 2) {
      return "padding must be between 0 and half the kernel size";
    }
    p->in[d] = self.size(p->rank - 3 + d);
    p->out[d] = pooled_length(p->in[d], p->kernel[d], p->stride[d], p->pad[d], p->dilation[d],
                              ceil_mode);
    if (p->out[d] <= 0) {
      return "the window does not fit the padded input: output size would be <= 0";
    }
    p->out_sizes[p->rank - 3 + d] = p->out[d];
  }
  return nullptr;
}

}  // namespace tailor::native
