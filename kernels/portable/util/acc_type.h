#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// The type sums and products are computed in: 16-bit floats accumulate in float,
// everything else in its own type (as torch does on the CPU).
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
template <typename T>
using acc_t = typename AccType<T>::type;

}  // namespace tailor::native
