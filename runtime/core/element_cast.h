// cast_element<To>(v): one element converted to another dtype's C++ type, defined for
// every value.
//
// C++ leaves a floating value that does not fit the integer type it is converted to
// undefined (UBSan's float-cast-overflow). Kernels convert with cast_element instead,
// which gives what torch eager gives on x86-64, measured with torch 2.13 (its casts
// compile to the truncating SSE conversions cvttss2si / cvttsd2si, scalar and vector):
//
//   Int, Long     truncated toward zero; NaN, +-inf and values outside the type give
//                 the type's minimum (x86's "integer indefinite"): int(1e20) = INT32_MIN
//   Char, Short   the low bits of the Int conversion: char(-501.0) = 11, short(inf) = 0
//   Byte          the low 8 bits of the Long conversion: uint8(-1.0) = 255,
//                 uint8(-2147483649.0) = 255
//   Bool          nonzero (NaN too) is true
//
// Half and BFloat16 convert through float. The rule is the same on every CPU: on aarch64
// torch eager itself differs for values that do not fit (its fcvtzs saturates: NaN gives
// 0, +inf the maximum), and a Tailor runtime there still gives x86-64's answers, so the
// self-check against outputs exported on an x86-64 host holds. Values that fit convert
// identically everywhere.
#pragma once

#include <stdint.h>

#include "runtime/core/traits.h"

namespace tailor {
namespace internal {

// cvttsd2si into 32 bits: inside (-2^31 - 1, 2^31) truncates, anything else (NaN too)
// is INT32_MIN.
inline int32_t truncate_to_int32(double v) {
  return v > -2147483649.0 && v < 2147483648.0 ? static_cast<int32_t>(v) : INT32_MIN;
}

// cvttsd2si into 64 bits: inside [-2^63, 2^63) truncates, anything else is INT64_MIN.
inline int64_t truncate_to_int64(double v) {
  return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? static_cast<int64_t>(v)
                                                                  : INT64_MIN;
}

}  // namespace internal

/// `v` (an arithmetic type, Half or BFloat16) as To, as static_cast converts it when
/// that is defined, and by the rule above for a floating value into an integer type.
template <typename To, typename From>
inline To cast_element(From v) {
  if constexpr (is_integral_v<To> && !is_same_v<To, bool> && !is_integral_v<From>) {
    const double d = static_cast<double>(v);  // Half and BFloat16 through their float
    if constexpr (static_cast<To>(-1) > static_cast<To>(0)) {  // unsigned: Byte
      return static_cast<To>(static_cast<uint64_t>(internal::truncate_to_int64(d)));
    } else if constexpr (sizeof(To) == 8) {
      return static_cast<To>(internal::truncate_to_int64(d));
    } else if constexpr (sizeof(To) == 4) {
      return static_cast<To>(internal::truncate_to_int32(d));
    } else {  // Char, Short: the low bits, two's complement
      return static_cast<To>(static_cast<uint32_t>(internal::truncate_to_int32(d)));
    }
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace tailor
