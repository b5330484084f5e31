// argmax over a vocabulary's logits, W floats at a time (kernels/optimized/util/vec.h):
// greedy sampling's whole cost, 0.7 ns a logit as a scalar loop.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kernels/optimized/util/vec.h"

namespace llm {

/// The index the scalar loop `if (s[i] > best) best = s[i]` gives, starting from s[0]:
/// the first index of the largest score; a NaN never wins, and a NaN s[0] stays the
/// answer (nothing compares greater). `size` >= 1, < 2^31.
size_t argmax(const float* scores, size_t size);

// The body argmax() runs at the CPU's vector width (vec_run): kLanes independent W-wide
// (value, index) pairs, each keeping the first index of its lanes' largest score, then
// the largest of them with the lowest index, then the ragged tail one by one.
struct ArgmaxBody {
  static constexpr int kChains = 4;  // independent compare-select chains: one would
                                     // wait on each compare's latency

  template <int W>
  TL_VEC_INLINE static void run(const float* s, size_t size, size_t* out) {
    using F = tailor::optimized::VecF<W>;
    using I = typename tailor::optimized::Vec<W>::I;
    constexpr int kStep = kChains * W;
    F best[kChains];
    I where[kChains];
    I at;  // the indices of the lanes of the chain being read
    for (int l = 0; l < W; ++l) at[l] = l;
    for (int c = 0; c < kChains; ++c) {
      best[c] = F{} + s[0];
      where[c] = I{};
    }
    const size_t whole = size - size % kStep;
    for (size_t i = 0; i < whole; i += kStep) {
      for (int c = 0; c < kChains; ++c, at += W) {
        F v;
        tailor::optimized::vec_load<W>(s + i + c * W, v);
        const I greater = v > best[c];
        best[c] = greater ? v : best[c];
        where[c] = greater ? at : where[c];
      }
    }
    float value = s[0];
    int32_t index = 0;
    for (int c = 0; c < kChains; ++c) {
      for (int l = 0; l < W; ++l) {
        const float b = best[c][l];
        if (b > value || (b == value && where[c][l] < index)) {
          value = b;
          index = where[c][l];
        }
      }
    }
    for (size_t i = whole; i < size; ++i) {
      if (s[i] > value) {
        value = s[i];
        index = static_cast<int32_t>(i);
      }
    }
    *out = static_cast<size_t>(index);
  }
};

}  // namespace llm
