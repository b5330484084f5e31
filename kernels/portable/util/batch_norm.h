// What the batch norm kernels share: the per-channel argument check.
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Whether a per-channel tensor fits: `channels` entries of `dtype` in one dim (absent
// counts as fitting; callers pass required tensors by address).
inline bool batch_norm_per_channel_ok(const Tensor* t, int64_t channels, ScalarType dtype) {
  return t == nullptr || (t->dim() == 1 && t->size(0) == channels && t->dtype() == dtype);
}

}  // namespace tailor::native
