// Shared code of _softmax and _log_softmax: both normalise along one dimension.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Self seen around the softmax dim: `outer` rows of n elements, `inner` apart.
struct SoftmaxSplit {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
};

// Validates a softmax call and writes the split of self around `dim`.
inline bool check_softmax_out(const char* op, const Tensor& self, int64_t dim,
                              bool half_to_float, Tensor& out, SoftmaxSplit* split) {
  int64_t d = 0;
  if (!normalize_dim(dim, self.dim(), &d) || half_to_float ||
      resize_like(out, self) != Error::Ok || !same_dtype(self, out) ||
      !is_floating_type(self.dtype()) ||
      !(is_default_dim_order(self) && is_default_dim_order(out))) {
    TL_LOG(Error, "%s: dim out of range, half_to_float set, or out is not a contiguous "
           "floating tensor like self", op);
    return false;
  }
  *split = SoftmaxSplit{};
  split->n = self.dim() == 0 ? 1 : self.size(d);
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i < d) split->outer *= self.size(i);
    if (i > d) split->inner *= self.size(i);
  }
  return true;
}

// softmax (or, with `log`, log_softmax) of each of the outer * inner rows of n elements
// strided by `inner`; computed in acc_t<T>, subtracting the row's max first.
template <typename T>
void softmax_rows(const T* in, T* out, const SoftmaxSplit& split, bool log) {
  using Acc = acc_t<T>;
  const int64_t outer = split.outer;
  const int64_t n = split.n;
  const int64_t inner = split.inner;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      const T* src = in + o * n * inner + j;
      T* dst = out + o * n * inner + j;
      Acc max = static_cast<Acc>(src[0]);
      for (int64_t k = 1; k < n; ++k) {
        const Acc v = static_cast<Acc>(src[k * inner]);
        max = v > max ? v : max;
      }
      // Masked positions (-inf, as a causal or KV-cache mask leaves them) add exactly 0:
      // skipping their exp saves most of the work of a masked row.
      auto exp_shifted = [max](Acc v) {
        return v == -__builtin_inf() ? Acc(0) : math::exp(v - max);
      };
      Acc sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        const Acc e = exp_shifted(static_cast<Acc>(src[k * inner]));
        sum += e;
        // Kept for the division below when it loses nothing (T is the accumulator type).
        if constexpr (is_same_v<T, Acc>) {
          if (!log) dst[k * inner] = e;
        }
      }
      const Acc log_sum = math::log(sum);
      for (int64_t k = 0; k < n; ++k) {
        if (log) {
          dst[k * inner] = static_cast<T>(static_cast<Acc>(src[k * inner]) - max - log_sum);
        } else if constexpr (is_same_v<T, Acc>) {
          dst[k * inner] = dst[k * inner] / sum;
        } else {
          dst[k * inner] = static_cast<T>(exp_shifted(static_cast<Acc>(src[k * inner])) / sum);
        }
      }
    }
  }
}

// Rows of `in` whose n elements are all -inf get 0 in `out` (tailor_nn::safe_softmax:
// attention rows a mask removed completely; softmax_rows() left NaN there).
template <typename T>
void zero_masked_rows(const T* in, T* out, const SoftmaxSplit& split) {
  const int64_t n = split.n;
  const int64_t inner = split.inner;
  for (int64_t o = 0; o < split.outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      const T* src = in + o * n * inner + j;
      int64_t k = 0;
      while (k < n && static_cast<acc_t<T>>(src[k * inner]) == -__builtin_inf()) ++k;
      if (k < n) continue;
      T* dst = out + o * n * inner + j;
      for (k = 0; k < n; ++k) dst[k * inner] = T(0);
    }
  }
}

}  // namespace tailor::native
