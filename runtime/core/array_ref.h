// ArrayRef<T>: a non-owning view of a contiguous array.
#pragma once

#include <stddef.h>

#include "runtime/platform/assert.h"

namespace tailor {

/// Pointer + length; the viewed memory must outlive the view.
template <typename T>
class ArrayRef final {
 public:
  constexpr ArrayRef() : data_(nullptr), size_(0) {}
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  /// A view of one element.
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  template <size_t N>
  constexpr ArrayRef(const T (&array)[N]) : data_(array), size_(N) {}

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }

  const T& operator[](size_t i) const {
    TL_DCHECK(i < size_);
    return data_[i];
  }

  /// Elementwise equality.
  bool equals(ArrayRef other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i) {
      if (!(data_[i] == other.data_[i])) return false;
    }
    return true;
  }

  /// The `n` elements from `start`; the range must be inside this view.
  ArrayRef slice(size_t start, size_t n) const {
    TL_DCHECK(start + n <= size_);
    return ArrayRef(data_ + start, n);
  }

 private:
  const T* data_;
  size_t size_;
};

}  // namespace tailor
