// Scalar: the value of a `Scalar` schema argument (an int, a float or a bool).
#pragma once

#include <stdint.h>

#include "runtime/core/half.h"
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

  /// Whether the value converts to T (an arithmetic type, Half or BFloat16) without
  /// overflow, by torch's rule for a Scalar written into a tensor (c10::checked_convert;
  /// full, fill and arange raise "value cannot be converted to type T without overflow"
  /// otherwise): an integer fits an integer type between its lowest and highest values,
  /// or an unsigned type down to minus its highest (-255 wraps into Byte as 1); a float
  /// fits an integer type when it is not NaN and lies between the bounds as doubles (so
  /// 255.5 does not fit Byte, 2^63 fits Long); a floating type takes every value but a
  /// finite one beyond its largest (70000 does not fit Half; inf and NaN do). Bool and
  /// double take every value.
  template <typename T>
  bool fits() const {
    if constexpr (is_integral_v<T> && !is_same_v<T, bool>) {
      constexpr bool kSigned = static_cast<T>(-1) < static_cast<T>(0);
      constexpr int kBits = static_cast<int>(sizeof(T) * 8);
      constexpr uint64_t kMax = kSigned ? ~(~uint64_t{0} << (kBits - 1))
                                        : ~uint64_t{0} >> (64 - kBits);
      constexpr int64_t kLowest = kSigned ? -static_cast<int64_t>(kMax) - 1 : 0;
      if (tag_ == Tag::Int) {
        const int64_t v = value_.i;
        if (v >= 0) return static_cast<uint64_t>(v) <= kMax;
        return kSigned ? v >= kLowest : uint64_t{0} - static_cast<uint64_t>(v) <= kMax;
      }
      if (tag_ == Tag::Double) {
        const double v = value_.d;
        return v == v && !(v < static_cast<double>(kLowest)) &&
               !(v > static_cast<double>(kMax));
      }
      return true;
    } else if constexpr (!is_same_v<T, double>) {  // float, Half, BFloat16
      constexpr double kMax = is_same_v<T, float>  ? 3.4028234663852886e+38
                              : is_same_v<T, Half> ? 65504.0
                                                   : 3.3895313892515355e+38;  // BFloat16
      const double v = tag_ == Tag::Double ? value_.d
                       : tag_ == Tag::Int  ? static_cast<double>(value_.i)
                                           : 0.0;
      const bool finite = v - v == 0.0;  // false for inf and NaN
      return !finite || (v >= -kMax && v <= kMax);
    } else {
      return true;
    }
  }

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
