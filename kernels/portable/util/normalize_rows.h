// The statistics pass shared by layer and group norm: each row's mean and rstd.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// For each of `rows` rows of `count` contiguous elements of x: the mean, then the biased
// variance from it (two passes, for accuracy) and rstd = 1 / sqrt(var + eps); writes both
// to mean_out[r] and rstd_out[r] and calls write(r, mean, rstd) for the row's outputs. An
// empty row has `empty_mean` and a NaN rstd, as in torch.
template <typename T, typename Write>
void normalize_rows(const T* x, int64_t rows, int64_t count, double eps,
                    acc_t<T> empty_mean, T* mean_out, T* rstd_out, Write write) {
  using Acc = acc_t<T>;
  for (int64_t r = 0; r < rows; ++r) {
    const T* src = x + r * count;
    Acc sum = 0;
    for (int64_t i = 0; i < count; ++i) {
      sum += static_cast<Acc>(src[i]);
    }
    const Acc mean = count > 0 ? sum / static_cast<Acc>(count) : empty_mean;
    Acc sq = 0;
    for (int64_t i = 0; i < count; ++i) {
      const Acc dev = static_cast<Acc>(src[i]) - mean;
      sq += dev * dev;
    }
    const Acc var = count > 0 ? sq / static_cast<Acc>(count) : math::quiet_nan<Acc>();
    const Acc rstd = Acc(1) / math::sqrt(var + static_cast<Acc>(eps));
    write(r, mean, rstd);
    mean_out[r] = static_cast<T>(mean);
    rstd_out[r] = static_cast<T>(rstd);
  }
}

}  // namespace tailor::native
