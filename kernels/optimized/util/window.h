// Sliding windows along a row, shared by the optimized kernels that run vectors across
// output columns (util/conv_depthwise.h, util/conv_gemm.h, op_max_pool2d_with_indices.cpp).
#pragma once

#include <stdint.h>

#include "kernels/optimized/util/vec.h"

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

// dst = rows [y0, y0 + rows) and columns [x0, x0 + cols) of an in_h x in_w plane, zeros
// where they lie outside it (a convolution's padding), row stride `cols`.
template <int W>
TL_VEC_INLINE void vec_copy_window(const float* plane, int64_t in_h, int64_t in_w, int64_t y0,
                                   int64_t x0, int64_t rows, int64_t cols, float* dst) {
  const int64_t first = x0 < 0 ? 0 : x0;  // the first column inside the plane
  const int64_t end = x0 + cols < in_w ? x0 + cols : in_w;
  const int64_t inside = end > first ? end - first : 0;
  const int64_t before = inside > 0 ? first - x0 : cols;
  for (int64_t r = 0; r < rows; ++r, dst += cols) {
    const int64_t y = y0 + r;
    if (y < 0 || y >= in_h || inside == 0) {
      vec_fill<W>(dst, cols, 0.0f);
      continue;
    }
    vec_fill<W>(dst, before, 0.0f);
    vec_copy<W>(plane + y * in_w + first, dst + before, inside);
    vec_fill<W>(dst + before + inside, cols - before - inside, 0.0f);
  }
}

}  // namespace tailor::optimized
