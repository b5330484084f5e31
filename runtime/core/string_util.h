// C-string helpers for code that must compile without the C library's <string.h>
// (-ffreestanding). Byte copies use __builtin_memcpy instead: it inlines small copies
// and otherwise calls memcpy, which even a freestanding C runtime provides.
#pragma once

namespace tailor {

/// As strcmp: <0, 0 or >0 as `a` sorts before, equal to or after `b` (bytes unsigned).
constexpr int string_compare(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return static_cast<int>(static_cast<unsigned char>(*a)) -
         static_cast<int>(static_cast<unsigned char>(*b));
}

/// Constant-evaluable too: dtype selection compares op names at compile time.
constexpr bool string_equal(const char* a, const char* b) { return string_compare(a, b) == 0; }

}  // namespace tailor
