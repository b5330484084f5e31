// Scalar: the value of a `Scalar` schema argument (an int, a float or a bool).
#pragma once

#include <stdint.h>

#include "runtime/core/traits.h"

namespace tailor {

/// A tagged Int (int64), Double or Bool. Kernels read it as their element type with
/// to<T>(), which converts like static_cast where that is defined: a Double read as an
/// integer type saturates at the type's bounds (NaN gives 0), instead of the undefined
/// behaviour of an out-of-range conversion; an Int read as a narrower integer wraps.
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
        if constexpr (is_integral_v<T> && !is_same_v<T, bool>) {
          return saturate<T>(value_.d);
        } else {
          return static_cast<T>(value_.d);
        }
      case Tag::Bool:
        return static_cast<T>(value_.b);
    }
    return static_cast<T>(value_.i);
  }

 private:
  // `v` truncated to integer type T, clamped to T's range; NaN gives 0.
  template <typename T>
  static T saturate(double v) {
    constexpr int kBits = static_cast<int>(sizeof(T) * 8);
    constexpr bool kSigned = static_cast<T>(-1) < static_cast<T>(0);
    constexpr uint64_t kMax = kSigned ? ~(~uint64_t{0} << (kBits - 1))
                                      : ~uint64_t{0} >> (64 - kBits);
    // 2^(bits-1) or 2^bits: the first value past the top, exact as a double.
    constexpr double kTop = 2.0 * static_cast<double>(uint64_t{1} << (kBits - 1)) /
                            (kSigned ? 2.0 : 1.0);
    if (v != v) return static_cast<T>(0);
    if (v >= kTop) return static_cast<T>(kMax);
    if (kSigned ? v <= -kTop : v <= -1.0) {
      return kSigned ? static_cast<T>(-static_cast<T>(kMax) - 1) : static_cast<T>(0);
    }
    return static_cast<T>(v);
  }

  union {
    int64_t i;
    double d;
    bool b;
  } value_;
  Tag tag_;
};

}  // namespace tailor
