// Shared by pixel_shuffle.out and pixel_unshuffle.out: both move channels to and from
// r x r blocks of pixels of a (*, C, H, W) input, as the copy of a 6-d view of it.
#pragma once

#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// A (*, C, H, W) input: the leading dims as one batch.
struct PixelDims {
  int64_t batch = 1;
  int64_t c = 0;
  int64_t h = 0;
  int64_t w = 0;
};

// Reads the dims of `t`; false when its rank is below 3.
inline bool read_pixel_dims(const Tensor& t, PixelDims* p) {
  const int64_t rank = t.dim();
  if (rank < 3 || rank > int64_t(kMaxDims)) {
    return false;
  }
  for (int64_t d = 0; d < rank - 3; ++d) {
    p->batch *= t.size(d);
  }
  p->c = t.size(rank - 3);
  p->h = t.size(rank - 2);
  p->w = t.size(rank - 1);
  return true;
}

// `t`'s leading dims followed by (c, h, w), into `sizes`.
inline IntArrayRef pixel_out_sizes(const Tensor& t, int64_t c, int64_t h, int64_t w,
                                   int64_t* sizes) {
  const int64_t rank = t.dim();
  for (int64_t d = 0; d < rank - 3; ++d) {
    sizes[d] = t.size(d);
  }
  sizes[rank - 3] = c;
  sizes[rank - 2] = h;
  sizes[rank - 1] = w;
  return IntArrayRef(sizes, static_cast<size_t>(rank));
}

// A 6-d view over the batch and five more dims.
inline StridedView pixel_view(int64_t batch, const int64_t (&sizes)[5],
                              const int64_t (&strides)[5], int64_t batch_stride) {
  StridedView v;
  v.rank = 6;
  v.sizes[0] = batch;
  v.strides[0] = batch_stride;
  for (int64_t d = 0; d < 5; ++d) {
    v.sizes[d + 1] = sizes[d];
    v.strides[d + 1] = strides[d];
  }
  return v;
}

}  // namespace tailor::native
