#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Largest rank the portable kernels index with fixed-size arrays on the stack.
constexpr size_t kMaxDims = 16;

// Contiguous strides (in elements) of `sizes`, written to `strides`. They saturate
// where the product overflows, which only an empty tensor's sizes can make it do.
inline void contiguous_strides(IntArrayRef sizes, int64_t* strides) {
  int64_t stride = 1;
  for (size_t d = sizes.size(); d > 0; --d) {
    strides[d - 1] = stride;
    if (__builtin_mul_overflow(stride, sizes[d - 1], &stride)) stride = INT64_MAX;
  }
}

// Wraps a possibly negative dimension index into [0, rank); false if out of range. As in
// torch, a 0-d tensor accepts dim 0 and -1 (both give 0; callers must not index sizes).
inline bool normalize_dim(int64_t dim, int64_t rank, int64_t* out) {
  const int64_t span = rank == 0 ? 1 : rank;
  const int64_t wrapped = dim < 0 ? dim + span : dim;
  if (wrapped < 0 || wrapped >= span) {
    return false;
  }
  *out = wrapped;
  return true;
}

// True for the dtypes torch accepts as integer indices: Int and Long.
inline bool is_index_dtype(ScalarType t) { return t == ScalarType::Int || t == ScalarType::Long; }

// Element i of an Int or Long tensor (see is_index_dtype), as int64.
inline int64_t index_value(const Tensor& t, size_t i) {
  return t.dtype() == ScalarType::Int ? t.const_data<int32_t>()[i] : t.const_data<int64_t>()[i];
}

}  // namespace tailor::native
