// The larger or smaller of two values with torch's NaN rule, the range of a compute type,
// and Scalar bounds in a compute type: shared by maximum, minimum, clamp and hardtanh.
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// The smallest and largest value of M (an arithmetic compute type; for floats the
// infinities, so a missing clamp bound changes nothing).
template <typename M>
constexpr M lowest_value() {
  if constexpr (is_same_v<M, bool>) {
    return false;
  } else if constexpr (is_floating_point_v<M>) {
    return static_cast<M>(-__builtin_inf());
  } else if constexpr (M(-1) < M(0)) {
    return static_cast<M>(-static_cast<M>((uint64_t(1) << (sizeof(M) * 8 - 1)) - 1) - 1);
  } else {
    return M(0);
  }
}

template <typename M>
constexpr M highest_value() {
  if constexpr (is_same_v<M, bool>) {
    return true;
  } else if constexpr (is_floating_point_v<M>) {
    return static_cast<M>(__builtin_inf());
  } else if constexpr (M(-1) < M(0)) {
    return static_cast<M>((uint64_t(1) << (sizeof(M) * 8 - 1)) - 1);
  } else {
    return static_cast<M>(~uint64_t(0));
  }
}

// max(x, y) and min(x, y), NaN when either is NaN (torch.maximum / torch.minimum).
template <typename M>
inline M max_propagate_nan(M x, M y) {
  if constexpr (is_floating_point_v<M>) {
    return (x != x || x > y) ? x : y;
  } else {
    return x > y ? x : y;
  }
}

template <typename M>
inline M min_propagate_nan(M x, M y) {
  if constexpr (is_floating_point_v<M>) {
    return (x != x || x < y) ? x : y;
  } else {
    return x < y ? x : y;
  }
}

// The Scalar bound `s` in compute type M. For integer M a floating bound truncates toward
// zero, as torch converts it, and any bound saturates to M's range: torch rejects a bound
// M cannot hold, and clamping to the saturated bound keeps the same values without the
// wrap-around (or undefined conversion) a plain cast would give. A NaN bound becomes 0.
template <typename M>
M scalar_bound(const Scalar& s) {
  if constexpr (is_floating_point_v<M> || is_same_v<M, bool>) {
    return s.to<M>();
  } else {
    constexpr M lo = lowest_value<M>();
    constexpr M hi = highest_value<M>();
    if (s.is_floating_point()) {
      const double v = s.to<double>();
      if (v != v) return M(0);
      if (v <= static_cast<double>(lo)) return lo;
      if (v >= static_cast<double>(hi)) return hi;
      return static_cast<M>(v);
    }
    const int64_t v = s.to<int64_t>();
    if (v <= static_cast<int64_t>(lo)) return lo;
    if (v >= static_cast<int64_t>(hi)) return hi;
    return static_cast<M>(v);
  }
}

}  // namespace tailor::native
