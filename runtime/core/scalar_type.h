// ScalarType: tensor element types, with the codes ATen uses (c10::ScalarType).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace tailor {

enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  Bool = 11,
  BFloat16 = 15,
};

/// One more than the largest code; dtype masks use bit `1u << code`.
inline constexpr int kNumScalarTypeCodes = 16;

/// True when `code` is the code of a ScalarType this runtime knows.
constexpr bool is_valid_scalar_type(int code) {
  return (code >= 0 && code <= 7) || code == 11 || code == 15;
}

/// Bytes per element; 0 for an invalid type.
constexpr size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Bool:
      return 1;
    case ScalarType::Short:
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return 2;
    case ScalarType::Int:
    case ScalarType::Float:
      return 4;
    case ScalarType::Long:
    case ScalarType::Double:
      return 8;
  }
  return 0;
}

/// The name ATen prints ("Float"), as used in kernel keys; "Invalid" otherwise.
constexpr const char* scalar_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "Byte";
    case ScalarType::Char: return "Char";
    case ScalarType::Short: return "Short";
    case ScalarType::Int: return "Int";
    case ScalarType::Long: return "Long";
    case ScalarType::Half: return "Half";
    case ScalarType::Float: return "Float";
    case ScalarType::Double: return "Double";
    case ScalarType::Bool: return "Bool";
    case ScalarType::BFloat16: return "BFloat16";
  }
  return "Invalid";
}

/// Float, Double, Half or BFloat16.
constexpr bool is_floating_type(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
         t == ScalarType::BFloat16;
}

/// Byte, Char, Short, Int or Long; Bool too when `include_bool`.
constexpr bool is_integral_type(ScalarType t, bool include_bool) {
  return (t >= ScalarType::Byte && t <= ScalarType::Long) ||
         (include_bool && t == ScalarType::Bool);
}

}  // namespace tailor
