// Sliding windows along a row, shared by the optimized kernels that run vectors across
// output columns (util/conv_depthwise.h, op_max_pool2d_with_indices.cpp).
#pragma once

#include <stdint.h>

namespace tailor::optimized {

// Output columns [begin, end) whose windows (`kernel` taps `dilation` apart, starting at
// column * stride - pad) lie wholly inside a row of `in_w` columns; begin == end when
// there are none. The columns outside need bounds checks (the padding).
struct InnerColumns {
  int64_t begin = 0;
  int64_t end = 0;
};

inline InnerColumns window_inner_columns(int64_t in_w, int64_t out_w, int64_t kernel,
                                         int64_t stride, int64_t pad, int64_t dilation) {
  InnerColumns c;
  const int64_t last_start = in_w - 1 - (kernel - 1) * dilation;  // of a window inside
  c.begin = (pad + stride - 1) / stride;
  c.end = last_start + pad < 0 ? 0 : (last_start + pad) / stride + 1;
  if (c.end > out_w) c.end = out_w;
  if (c.end < c.begin) c.end = c.begin = out_w;
  return c;
}

// Whether W columns `stride` apart from `first`, and the whole window of the last one,
// can be read with vec_load_every() (which reads 2W columns for stride 2) inside the row.
inline bool window_vector_fits(int64_t first, int64_t span, int64_t stride, int64_t w,
                               int64_t in_w) {
  return first + span + stride * w <= in_w;
}

}  // namespace tailor::optimized
