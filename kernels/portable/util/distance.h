// Shared by _cdist_forward.out and _pdist_forward.out: the p-norm distance of two rows as
// torch computes it (p = 0 counts differing entries, p = inf takes the largest
// difference).
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// || a - b ||_p over m entries, for p >= 0, computed in M.
template <typename M, typename T>
M p_distance(const T* a, const T* b, int64_t m, double p) {
  M acc = M(0);
  if (p == 0.0) {
    for (int64_t k = 0; k < m; ++k) {
      acc += static_cast<M>(a[k]) != static_cast<M>(b[k]) ? M(1) : M(0);
    }
    return acc;
  }
  if (p == 1.0) {
    for (int64_t k = 0; k < m; ++k) {
      acc += math::fabs(static_cast<M>(a[k]) - static_cast<M>(b[k]));
    }
    return acc;
  }
  if (p == 2.0) {
    for (int64_t k = 0; k < m; ++k) {
      const M d = static_cast<M>(a[k]) - static_cast<M>(b[k]);
      acc += d * d;
    }
    return math::sqrt(acc);
  }
  if (__builtin_isinf(p)) {
    for (int64_t k = 0; k < m; ++k) {
      const M d = math::fabs(static_cast<M>(a[k]) - static_cast<M>(b[k]));
      acc = d > acc || d != d ? d : acc;  // NaN wins, as torch's max does
    }
    return acc;
  }
  const M exponent = static_cast<M>(p);
  for (int64_t k = 0; k < m; ++k) {
    acc += math::pow(math::fabs(static_cast<M>(a[k]) - static_cast<M>(b[k])), exponent);
  }
  return math::pow(acc, M(1) / exponent);
}

}  // namespace tailor::native
