// Float and double math for kernels, on the compiler's builtins instead of <cmath>
// (a hosted header: Android and bare-metal builds compile the kernels freestanding).
// A builtin inlines where the compiler can (sqrt, fabs, ceil...) and otherwise calls
// the libm function of the same name, so results match <cmath> exactly. As in
// <cmath>, integer arguments compute in double (kernels name these functions in
// `if constexpr` branches that are still compiled for their integer dtypes).
#pragma once

#include "runtime/core/traits.h"

namespace tailor::math {

#define TL_MATH_UNARY(name)                                                \
  inline float name(float x) { return __builtin_##name##f(x); }           \
  inline double name(double x) { return __builtin_##name(x); }            \
  template <typename I, enable_if_t<is_integral_v<I>, int> = 0>           \
  double name(I x) {                                                      \
    return __builtin_##name(static_cast<double>(x));                      \
  }

#define TL_MATH_BINARY(name)                                                        \
  inline float name(float x, float y) { return __builtin_##name##f(x, y); }        \
  inline double name(double x, double y) { return __builtin_##name(x, y); }        \
  template <typename A, typename B,                                                \
            enable_if_t<is_integral_v<A> || is_integral_v<B>, int> = 0>            \
  double name(A x, B y) {                                                          \
    return __builtin_##name(static_cast<double>(x), static_cast<double>(y));       \
  }

TL_MATH_UNARY(exp)
TL_MATH_UNARY(expm1)
TL_MATH_UNARY(log)
TL_MATH_UNARY(log1p)
TL_MATH_UNARY(sqrt)
TL_MATH_UNARY(tanh)
TL_MATH_UNARY(erf)
TL_MATH_UNARY(sin)
TL_MATH_UNARY(cos)
TL_MATH_UNARY(fabs)
TL_MATH_UNARY(ceil)
TL_MATH_UNARY(floor)
TL_MATH_UNARY(trunc)
TL_MATH_UNARY(nearbyint)  // rounds half to even (the default rounding mode), as torch.round
TL_MATH_UNARY(log2)
TL_MATH_UNARY(log10)
TL_MATH_UNARY(tan)
TL_MATH_UNARY(acos)
TL_MATH_UNARY(asin)
TL_MATH_UNARY(atan)
TL_MATH_UNARY(sinh)
TL_MATH_UNARY(cosh)
TL_MATH_UNARY(acosh)
TL_MATH_UNARY(asinh)
TL_MATH_UNARY(atanh)
TL_MATH_BINARY(pow)
TL_MATH_BINARY(fmod)
TL_MATH_BINARY(copysign)
TL_MATH_BINARY(atan2)

#undef TL_MATH_UNARY
#undef TL_MATH_BINARY

/// A quiet NaN of T (float or double).
template <typename T>
constexpr T quiet_nan() {
  return static_cast<T>(__builtin_nan(""));
}

}  // namespace tailor::math
