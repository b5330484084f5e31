// Scalar: the value of a `Scalar` schema argument (an int, a float or a bool).
#pragma once

#include <stdint.h>

#include "runtime/core/traits.h"

namespace tailor {

/// A tagged Int (int64), Double or Bool. Kernels read it as their element type with
/// to<T>(), which converts like static_cast.
class Scalar final {
 public:
  enum class Tag : uint8_t { Int, Double, Bool };

  Scalar() : tag_(Tag::Int) { value_.i = 0; }
  template <typename T, enable_if_t<is_integral_v<T> && !is_same_v<T, bool>,
                                         int> = 0>
  Scalar(T value) : tag_(Tag::Int) {
    value_.i = static_cast<int64_t>(value);
  }
  Scalar(double value) : tag_(Tag::Double) { value_.d = value; }
  Scalar(bool value) : tag_(Tag::Bool) { value_.b = value; }

  Tag tag() const { return tag_; }
  bool is_integral() const { return tag_ == Tag::Int; }
  bool is_floating_point() const { return tag_ == Tag::Double; }
  bool is_boolean() const { return tag_ == Tag::Bool; }

  /// The value converted to T (an arithmetic type, Half or BFloat16).
  template <typename T>
  T to() const {
    switch (tag_) {
      case Tag::Int:
        return static_cast<T>(value_.i);
      case Tag::Double:
        return static_cast<T>(value_.d);
      case Tag::Bool:
        return static_cast<T>(value_.b);
    }
    return static_cast<T>(value_.i);
  }

 private:
  union {
    int64_t i;
    double d;
    bool b;
  } value_;
  Tag tag_;
};

}  // namespace tailor
