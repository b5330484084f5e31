// Optional<T>: a value or nothing, stored inline (no heap), for trivially
// destructible T.
#pragma once

#include "runtime/core/traits.h"
#include "runtime/platform/assert.h"

namespace tailor {

struct nullopt_t {
  explicit constexpr nullopt_t(int) {}
};
inline constexpr nullopt_t nullopt{0};

/// Kernels receive `T?` schema arguments as Optional<T>.
template <typename T>
class Optional final {
  static_assert(is_trivially_destructible_v<T>, "Optional holds trivial types only");

 public:
  constexpr Optional() : empty_(), has_value_(false) {}
  constexpr Optional(nullopt_t) : empty_(), has_value_(false) {}
  constexpr Optional(const T& value) : value_(value), has_value_(true) {}

  constexpr bool has_value() const { return has_value_; }
  constexpr explicit operator bool() const { return has_value_; }

  const T& value() const {
    TL_DCHECK(has_value_);
    return value_;
  }
  T& value() {
    TL_DCHECK(has_value_);
    return value_;
  }
  const T& operator*() const { return value(); }
  const T* operator->() const { return &value(); }

  constexpr T value_or(const T& fallback) const { return has_value_ ? value_ : fallback; }

 private:
  union {
    char empty_;
    T value_;
  };
  bool has_value_;
};

}  // namespace tailor
