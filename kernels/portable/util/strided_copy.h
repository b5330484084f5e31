// Gathers a strided view of a tensor into contiguous memory: the one loop behind
// permute/transpose/t, expand, slice, select and split copies.
#pragma once

#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// A view: out coordinate c reads src[offset + sum(c[d] * strides[d])] (in elements; a
// stride of 0 repeats, as in expand).
struct StridedView {
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];
  int64_t rank = 0;
  int64_t offset = 0;
};

// Merges neighbouring dims that walk memory as one (stride[d] == stride[d+1] * size[d+1])
// and drops size-1 dims, so the inner loop runs as long as possible. Leaves rank >= 1.
inline void coalesce_view(StridedView& v) {
  int64_t rank = 0;
  for (int64_t d = 0; d < v.rank; ++d) {
    if (v.sizes[d] == 1) {
      continue;
    }
    if (rank > 0 && v.strides[rank - 1] == v.strides[d] * v.sizes[d]) {
      v.sizes[rank - 1] *= v.sizes[d];
      v.strides[rank - 1] = v.strides[d];
    } else {
      v.sizes[rank] = v.sizes[d];
      v.strides[rank] = v.strides[d];
      ++rank;
    }
  }
  if (rank == 0) {
    v.sizes[0] = 1;
    v.strides[0] = 1;
    rank = 1;
  }
  v.rank = rank;
}

// Copies the view `v` of `src` into contiguous `dst`, walking `dst` in order.
template <typename W>
void strided_copy(const W* src, W* dst, StridedView v) {
  for (int64_t d = 0; d < v.rank; ++d) {
    if (v.sizes[d] == 0) {
      return;
    }
  }
  coalesce_view(v);
  const int64_t inner = v.sizes[v.rank - 1];
  const int64_t inner_stride = v.strides[v.rank - 1];
  int64_t counter[kMaxDims] = {};
  const W* base = src + v.offset;
  for (;;) {
    if (inner_stride == 1) {
      __builtin_memcpy(dst, base, static_cast<size_t>(inner) * sizeof(W));
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        dst[i] = base[i * inner_stride];
      }
    }
    dst += inner;
    // Step the outer dims like an odometer.
    int64_t d = v.rank - 2;
    for (; d >= 0; --d) {
      base += v.strides[d];
      if (++counter[d] < v.sizes[d]) {
        break;
      }
      base -= v.strides[d] * v.sizes[d];
      counter[d] = 0;
    }
    if (d < 0) {
      return;
    }
  }
}

// Contiguous tensor `t` as a view of itself: its sizes and row-major strides.
inline StridedView contiguous_view(const Tensor& t) {
  StridedView v;
  v.rank = t.dim();
  for (int64_t d = 0; d < v.rank; ++d) {
    v.sizes[d] = t.size(d);
  }
  contiguous_strides(IntArrayRef(v.sizes, static_cast<size_t>(v.rank)), v.strides);
  return v;
}

// The view of contiguous `t` that keeps `length` entries of dim `dim` (a valid dim),
// from `start`, every `step`-th.
inline StridedView slice_view(const Tensor& t, int64_t dim, int64_t start, int64_t length,
                              int64_t step) {
  StridedView v = contiguous_view(t);
  v.offset = start * v.strides[dim];
  v.sizes[dim] = length;
  v.strides[dim] *= step;
  return v;
}

}  // namespace tailor::native
