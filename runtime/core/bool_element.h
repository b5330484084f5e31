// Bool: the element type of a Bool tensor, one byte read as byte != 0 and written as 0
// or 1. Tensor memory is never loaded as C++ bool: a crafted memory plan can lay a Bool
// tensor over bytes another dtype's kernel wrote (0x02, 0xff), and a bool load of any
// byte but 0 or 1 is undefined behaviour. The dtype switches bind T = Bool, and
// Tensor::const_data<bool>() does not compile, so every read goes through value().
#pragma once

#include <stdint.h>

namespace tailor {

struct Bool {
  uint8_t byte;

  Bool() = default;
  /// Any number: nonzero is true, stored as 1.
  template <typename V>
  explicit constexpr Bool(V v) : byte(static_cast<bool>(v) ? 1 : 0) {}
  constexpr bool value() const { return byte != 0; }
  explicit constexpr operator bool() const { return value(); }
};
static_assert(sizeof(Bool) == 1, "a Bool element is one byte");

/// An element as a number: a Bool's value(), any other element itself.
template <typename T>
constexpr const T& element_value(const T& x) {
  return x;
}
constexpr bool element_value(Bool x) { return x.value(); }

}  // namespace tailor
