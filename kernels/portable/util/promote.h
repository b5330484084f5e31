// Type promotion as torch does it (c10::promoteTypes, at::result_type, c10::canCast),
// for the dtypes this runtime knows.
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// 0 Bool, 1 integer, 2 floating: a dtype of a higher kind wins a promotion.
constexpr int dtype_kind(ScalarType t) {
  return t == ScalarType::Bool ? 0 : (is_floating_type(t) ? 2 : 1);
}

// The dtype both `a` and `b` convert to without losing their kind or range.
constexpr ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (dtype_kind(a) != dtype_kind(b)) return dtype_kind(a) > dtype_kind(b) ? a : b;
  if (dtype_kind(a) == 2) {
    const bool a16 = a == ScalarType::Half || a == ScalarType::BFloat16;
    const bool b16 = b == ScalarType::Half || b == ScalarType::BFloat16;
    if (a16 && b16) return ScalarType::Float;  // Half and BFloat16 share no range
    return element_size(a) > element_size(b) ? a : b;
  }
  // Integers: unsigned Byte with a signed type needs the next wider signed one.
  if (a == ScalarType::Byte || b == ScalarType::Byte) {
    const ScalarType other = a == ScalarType::Byte ? b : a;
    return other == ScalarType::Char ? ScalarType::Short : other;
  }
  return element_size(a) > element_size(b) ? a : b;
}

// torch's rule between argument categories: a lower category (0-d tensors below
// tensors, Scalars below both) only matters when it is of a higher kind.
constexpr ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (dtype_kind(higher) == 2) return higher;
  if (higher == ScalarType::Bool || dtype_kind(lower) == 2) return promote_types(higher, lower);
  return higher;
}

// The dtype torch gives a Scalar argument: Long, Float (the default dtype) or Bool.
inline ScalarType scalar_dtype(const Scalar& s) {
  return s.is_integral() ? ScalarType::Long
                         : (s.is_floating_point() ? ScalarType::Float : ScalarType::Bool);
}

// at::result_type(a, b) for two tensors.
inline ScalarType result_type(const Tensor& a, const Tensor& b) {
  if ((a.dim() == 0) == (b.dim() == 0)) return promote_types(a.dtype(), b.dtype());
  return a.dim() != 0 ? combine_categories(a.dtype(), b.dtype())
                      : combine_categories(b.dtype(), a.dtype());
}

// at::result_type(t, s) for a tensor and a Scalar.
inline ScalarType result_type(const Tensor& t, const Scalar& s) {
  return combine_categories(t.dtype(), scalar_dtype(s));
}

// True when a result of dtype `from` may be written to an out tensor of dtype `to`:
// never floating to integer or Bool, never a number to Bool.
constexpr bool can_cast(ScalarType from, ScalarType to) {
  return !(dtype_kind(from) > dtype_kind(to));
}

}  // namespace tailor::native
