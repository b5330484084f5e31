#include "runtime/core/tensor.h"

#include <limits.h>

namespace tailor {

Tensor::Tensor(ScalarType dtype, size_t dim, int32_t* sizes, const uint8_t* dim_order,
               int64_t* strides, void* data, size_t capacity_bytes, bool dynamic)
    : data_(data),
      sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      dim_(dim),
      capacity_bytes_(capacity_bytes),
      dtype_(dtype),
      dynamic_(dynamic) {
  numel_ = 1;
  for (size_t d = 0; d < dim_; ++d) numel_ *= static_cast<size_t>(sizes_[d]);
  update_strides();
}

bool Tensor::is_contiguous() const {
  for (size_t d = 0; d < dim_; ++d) {
    if (dim_order_[d] != d) return false;
  }
  return true;
}

void Tensor::update_strides() {
  // Walk the dim order from the innermost dimension outwards. The product fits when the
  // tensor has elements (its bytes are planned); an empty tensor may have huge sizes in
  // other dims, and its strides address nothing, so they saturate instead of overflowing.
  int64_t stride = 1;
  for (size_t i = dim_; i > 0; --i) {
    const uint8_t d = dim_order_[i - 1];
    strides_[d] = stride;
    if (__builtin_mul_overflow(stride, static_cast<int64_t>(sizes_[d]), &stride)) {
      stride = INT64_MAX;
    }
  }
}

template <typename S>
Error Tensor::set_sizes_impl(ArrayRef<S> sizes) {
  if (sizes.size() != dim_) return Error::InvalidArgument;
  bool same = true;
  bool empty = false;
  for (size_t d = 0; d < dim_; ++d) {
    const int64_t s = static_cast<int64_t>(sizes[d]);
    if (s < 0 || s > INT32_MAX) return Error::InvalidArgument;
    same = same && s == sizes_[d];
    empty = empty || s == 0;
  }
  if (same) return Error::Ok;
  if (!dynamic_) return Error::InvalidArgument;
  // Count elements against the capacity so the product can never overflow.
  const size_t max_numel = capacity_bytes_ / element_size();
  size_t numel = 1;
  if (empty) {
    numel = 0;
  } else {
    for (size_t d = 0; d < dim_; ++d) {
      const size_t s = static_cast<size_t>(sizes[d]);
      if (numel > max_numel / s) return Error::InvalidArgument;
      numel *= s;
    }
  }
  for (size_t d = 0; d < dim_; ++d) sizes_[d] = static_cast<int32_t>(sizes[d]);
  numel_ = numel;
  update_strides();
  return Error::Ok;
}

Error Tensor::set_sizes(ArrayRef<int64_t> sizes) { return set_sizes_impl(sizes); }
Error Tensor::set_sizes(ArrayRef<int32_t> sizes) { return set_sizes_impl(sizes); }

}  // namespace tailor
