#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Largest rank the portable kernels index with fixed-size arrays on the stack.
constexpr size_t kMaxDims = 16;

// Contiguous strides (in elements) of `sizes`, written to `strides`.
inline void contiguous_strides(IntArrayRef sizes, int64_t* strides) {
  int64_t stride = 1;
  for (size_t d = sizes.size(); d > 0; --d) {
    strides[d - 1] = stride;
    stride *= sizes[d - 1];
  }
}

// Wraps a possibly negative dimension index into [0, rank); false if out of range.
inline bool normalize_dim(int64_t dim, int64_t rank, int64_t* out) {
  const int64_t wrapped = dim < 0 ? dim + rank : dim;
  if (wrapped < 0 || wrapped >= (rank == 0 ? 1 : rank)) {
    return false;
  }
  *out = wrapped;
  return true;
}

}  // namespace tailor::native
