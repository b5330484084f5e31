// Softmax of contiguous rows on vectors of floats (util/vec.h), for _softmax.out and
// tailor_nn::safe_softmax.out: vec_run<SoftmaxRows<Safe>>(in, out, rows, n).
#pragma once

#include "kernels/optimized/util/vec_math.h"
#include "kernels/optimized/util/vec_parallel.h"

namespace tailor::optimized {

// Per row: the max, exp(x - max) written to out while summing, then out times 1 / sum.
// A row of n >= W floats ends on one vector that overlaps the last whole one (its lanes
// before the ragged end are counted once: the sum masks them, and the overlapped outputs
// are rewritten with the same values), so no lane-by-lane load sits in the loop. With
// Safe, a row of only -inf gives 0 (plain softmax gives NaN there, as torch does).
template <bool Safe>
struct SoftmaxRows {
  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, int64_t rows, int64_t n) {
    using F = VecF<W>;
    using I = typename Vec<W>::I;
    const int64_t full = n / W * W;
    const int64_t rest = n - full;
    const bool overlap = rest > 0 && n >= W;
    I lane;
    for (int l = 0; l < W; ++l) lane[l] = l;
    const I tail_lanes = lane >= static_cast<int32_t>(W - rest);  // the overlap's new lanes
    for (int64_t r = 0; r < rows; ++r, in += n, out += n) {
      F v;
      F vmax = F{} - __builtin_inff();
      for (int64_t i = 0; i < full; i += W) {
        vec_load<W>(in + i, v);
        vec_max_into<W>(vmax, v);
      }
      if (overlap) {
        vec_load<W>(in + n - W, v);
        vec_max_into<W>(vmax, v);
      } else if (rest > 0) {
        vec_load_partial<W>(in + full, rest, -__builtin_inff(), v);
        vec_max_into<W>(vmax, v);
      }
      const float row_max = vec_max<W>(vmax);
      if (Safe && row_max == -__builtin_inff() && all_minus_inf(in, n)) {
        for (int64_t i = 0; i < n; ++i) out[i] = 0.0f;
        continue;
      }
      const F max = F{} + row_max;
      F vsum = F{};
      for (int64_t i = 0; i < full; i += W) {
        vec_load<W>(in + i, v);
        v -= max;
        vec_exp<W>(v);
        vsum += v;
        vec_store<W>(out + i, v);
      }
      F tail = F{};
      if (overlap) {
        vec_load<W>(in + n - W, tail);
        tail -= max;
        vec_exp<W>(tail);
        vsum += tail_lanes ? tail : F{};
      }
      float sum = vec_sum<W>(vsum);
      if (rest > 0 && !overlap) {
        vec_load_partial<W>(in + full, rest, 0.0f, v);
        v -= max;
        vec_exp<W>(v);
        for (int64_t i = 0; i < rest; ++i) sum += v[i];
        vec_store_partial<W>(out + full, rest, v);
      }
      const F scale = F{} + 1.0f / sum;
      for (int64_t i = 0; i < full; i += W) {
        vec_load<W>(out + i, v);
        vec_store<W>(out + i, v * scale);
      }
      if (overlap) {
        vec_store<W>(out + n - W, tail * scale);
      } else {
        for (int64_t i = full; i < n; ++i) out[i] *= scale[0];
      }
    }
  }

  static bool all_minus_inf(const float* in, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      if (in[i] != -__builtin_inff()) return false;
    }
    return true;
  }
};

/// vec_run<SoftmaxRows<Safe>>(in, out, rows, n) in chunks of whole rows over ctx's threads.
template <bool Safe>
void softmax_rows_parallel(KernelContext& ctx, const float* in, float* out, int64_t rows,
                           int64_t n) {
  ctx.parallel_range(rows, n * kVecCostPolynomial,
                     [&](int64_t begin, int64_t end, KernelScratch&) {
                       vec_run<SoftmaxRows<Safe>>(in + begin * n, out + begin * n,
                                                  end - begin, n);
                     });
}

}  // namespace tailor::optimized
