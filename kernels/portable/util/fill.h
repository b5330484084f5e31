// Writing one Scalar value into a tensor (full, full_like, scalar_tensor, arange): the
// overflow check torch makes first, and the fill.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Whether `value` fits `dtype` without overflow (Scalar::fits).
inline bool scalar_fits(const Scalar& value, ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Byte: return value.fits<uint8_t>();
    case ScalarType::Char: return value.fits<int8_t>();
    case ScalarType::Short: return value.fits<int16_t>();
    case ScalarType::Int: return value.fits<int32_t>();
    case ScalarType::Long: return value.fits<int64_t>();
    case ScalarType::Float: return value.fits<float>();
    case ScalarType::Half: return value.fits<Half>();
    case ScalarType::BFloat16: return value.fits<BFloat16>();
    default: return true;
  }
}

// The C type torch names in its overflow message.
inline const char* torch_c_type_name(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Byte: return "uint8_t";
    case ScalarType::Char: return "int8_t";
    case ScalarType::Short: return "int16_t";
    case ScalarType::Int: return "int";
    case ScalarType::Long: return "int64_t";
    case ScalarType::Float: return "float";
    case ScalarType::Half: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    default: return scalar_type_name(dtype);
  }
}

// True when argument `name` of `op` fits `dtype`; otherwise fails the call with torch's
// error (InvalidArgument), where a saturated or wrapped value would be a silent wrong answer.
inline bool check_scalar_fits(KernelContext& ctx, const char* op, const char* name,
                              const Scalar& value, ScalarType dtype) {
  if (scalar_fits(value, dtype)) return true;
  if (value.is_floating_point()) {
    TL_LOG(Error, "%s: value cannot be converted to type %s without overflow (%s %g)", op,
           torch_c_type_name(dtype), name, value.to<double>());
  } else {
    TL_LOG(Error, "%s: value cannot be converted to type %s without overflow (%s %lld)", op,
           torch_c_type_name(dtype), name, static_cast<long long>(value.to<int64_t>()));
  }
  ctx.fail(Error::InvalidArgument);
  return false;
}

// Writes `value`, converted to T like torch, to every element: a float into an integer
// type as cast_element converts it (after check_scalar_fits, only Long's 2^63 is outside,
// INT64_MIN as in torch); anything else through T's compute type.
template <typename T>
void fill_with(Tensor& out, const Scalar& value) {
  T v;
  if constexpr (is_integral_v<T> && !is_same_v<T, bool>) {
    v = value.is_floating_point() ? cast_element<T>(value.to<double>()) : value.to<T>();
  } else {
    v = static_cast<T>(value.to<acc_t<T>>());
  }
  T* dst = out.mutable_data<T>();
  const size_t numel = out.numel();
  for (size_t i = 0; i < numel; ++i) {
    dst[i] = v;
  }
}

}  // namespace tailor::native
