// What the batch norm kernels share: the per-channel argument check and the two loops,
// training (statistics of the batch) and eval (running statistics).
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Whether a per-channel tensor fits: `channels` entries of `dtype` in one dim (absent
// counts as fitting; callers pass required tensors by address).
inline bool batch_norm_per_channel_ok(const Tensor* t, int64_t channels, ScalarType dtype) {
  return t == nullptr || (t->dim() == 1 && t->size(0) == channels && t->dtype() == dtype);
}

// y = x * scale[c] + shift[c] over channel c of [batch, channels, inner], in the compute
// type, as torch folds the transform.
template <typename T>
void batch_norm_apply(const T* x, T* y, int64_t batch, int64_t channels, int64_t inner,
                      int64_t c, acc_t<T> scale, acc_t<T> shift) {
  for (int64_t n = 0; n < batch; ++n) {
    const int64_t offset = (n * channels + c) * inner;
    for (int64_t i = 0; i < inner; ++i) {
      y[offset + i] = static_cast<T>(static_cast<acc_t<T>>(x[offset + i]) * scale + shift);
    }
  }
}

// Training-mode batch norm of x [batch, channels, inner]: per channel c, the mean and the
// biased variance over batch and inner, summed in double as torch does; save_mean[c] =
// mean, save_invstd[c] = 1 / sqrt(var + eps); y = (x - mean) * invstd * w + b. With
// running statistics (not null) also updates them as torch does, in double:
// r = (1 - momentum) * r + momentum * s, s the mean and the unbiased variance.
template <typename T>
void batch_norm_training(const T* x, const T* w, const T* b, int64_t batch, int64_t channels,
                         int64_t inner, double eps, double momentum, T* y, T* save_mean,
                         T* save_invstd, T* running_mean, T* running_var) {
  using Acc = acc_t<T>;
  const double count = static_cast<double>(batch * inner);
  for (int64_t c = 0; c < channels; ++c) {
    double sum = 0.0;
    for (int64_t n = 0; n < batch; ++n) {
      const T* row = x + (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) sum += static_cast<double>(row[i]);
    }
    const double mean = sum / count;
    double squares = 0.0;
    for (int64_t n = 0; n < batch; ++n) {
      const T* row = x + (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const double d = static_cast<double>(row[i]) - mean;
        squares += d * d;
      }
    }
    save_mean[c] = static_cast<T>(mean);
    save_invstd[c] = static_cast<T>(1.0 / math::sqrt(squares / count + eps));
    if (running_mean != nullptr) {
      running_mean[c] = static_cast<T>(momentum * mean +
                                       (1.0 - momentum) * static_cast<double>(running_mean[c]));
      running_var[c] = static_cast<T>(momentum * (squares / (count - 1.0)) +
                                      (1.0 - momentum) * static_cast<double>(running_var[c]));
    }
    // The transform reads the stored statistics, in the compute type, as torch's does.
    const Acc alpha =
        static_cast<Acc>(save_invstd[c]) * (w != nullptr ? static_cast<Acc>(w[c]) : Acc(1));
    const Acc beta =
        (b != nullptr ? static_cast<Acc>(b[c]) : Acc(0)) - static_cast<Acc>(save_mean[c]) * alpha;
    batch_norm_apply(x, y, batch, channels, inner, c, alpha, beta);
  }
}

// Eval-mode batch norm: y = (x - mean[c]) / sqrt(var[c] + eps) * w[c] + b[c], from the
// running statistics.
template <typename T>
void batch_norm_eval(const T* x, const T* w, const T* b, const T* mean, const T* var,
                     int64_t batch, int64_t channels, int64_t inner, double eps, T* y) {
  using Acc = acc_t<T>;
  for (int64_t c = 0; c < channels; ++c) {
    const Acc invstd = Acc(1) / math::sqrt(static_cast<Acc>(var[c]) + static_cast<Acc>(eps));
    const Acc scale = w != nullptr ? invstd * static_cast<Acc>(w[c]) : invstd;
    const Acc shift =
        (b != nullptr ? static_cast<Acc>(b[c]) : Acc(0)) - static_cast<Acc>(mean[c]) * scale;
    batch_norm_apply(x, y, batch, channels, inner, c, scale, shift);
  }
}

// Elements per (n, c) of an [N, C, ...] input.
inline int64_t batch_norm_inner(const Tensor& input) {
  int64_t inner = 1;
  for (int64_t d = 2; d < input.dim(); ++d) {
    inner *= input.size(d);
  }
  return inner;
}

}  // namespace tailor::native
