#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// The type sums and products are computed in: 16-bit floats accumulate in float,
// Bool as bool, everything else in its own type (as torch does on the CPU).
template <typename T>
struct AccType {
  using type = T;
};
template <>
struct AccType<Half> {
  using type = float;
};
template <>
struct AccType<BFloat16> {
  using type = float;
};
// A Bool element computes as bool, read from its byte (bool_element.h).
template <>
struct AccType<Bool> {
  using type = bool;
};
template <typename T>
using acc_t = typename AccType<T>::type;

}  // namespace tailor::native
