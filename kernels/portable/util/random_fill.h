// Filling a tensor with random numbers (rand, randn, their _like forms, dropout's mask):
// element n of a call takes random::bits(ctx.random_key(), n), so the values depend on
// the method's seed, run and instruction and never on how the work is split over threads.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"
#include "runtime/kernel/math.h"
#include "runtime/kernel/random.h"

namespace tailor::native {

// Significant bits of a uniform value in [0, 1) of type T: every value is exact in T, so
// none rounds up to 1 (torch draws its mantissa's digits the same way).
template <typename T>
constexpr int uniform_digits() {
  if constexpr (is_same_v<T, double>) return 53;
  if constexpr (is_same_v<T, float>) return 24;
  if constexpr (is_same_v<T, Half>) return 11;
  return 8;  // BFloat16
}

enum class Distribution { Uniform, Normal };

// Element n of a stream in `dist`: uniform in [0, 1), or standard normal by Box-Muller
// from elements 2n and 2n + 1's bits (1 - u is in (0, 1], so the log is finite).
template <typename T>
T random_element(uint64_t key, uint64_t n, Distribution dist) {
  using Acc = acc_t<T>;
  if (dist == Distribution::Uniform) {
    return static_cast<T>(static_cast<Acc>(random::uniform(key, n, uniform_digits<T>())));
  }
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const double radius = math::sqrt(-2.0 * math::log(1.0 - random::uniform(key, 2 * n, 53)));
  const double angle = kTwoPi * random::uniform(key, 2 * n + 1, 53);
  return static_cast<T>(static_cast<Acc>(radius * math::cos(angle)));
}

namespace random_fill_detail {

// Cost of an element in multiply-adds (parallel.h's cost rule): a 64-bit hash, and for
// the normal distribution a log, a square root and a cosine.
constexpr int64_t kElementCost = 40;

}  // namespace random_fill_detail

// Fills `out` (contiguous) from the call's stream, on the context's threads.
template <typename T>
void fill_random(KernelContext& ctx, Tensor& out, Distribution dist) {
  T* data = out.mutable_data<T>();
  const uint64_t key = ctx.random_key();
  ctx.parallel_range(static_cast<int64_t>(out.numel()), random_fill_detail::kElementCost,
                     [data, key, dist](int64_t begin, int64_t end, KernelScratch&) {
                       for (int64_t n = begin; n < end; ++n) {
                         data[n] = random_element<T>(key, static_cast<uint64_t>(n), dist);
                       }
                     });
}

// rand.out, randn.out and their _like forms, once the caller resized `out`: filled in
// the floating dtypes of kMask (the calling op's TL_SELECTED_DTYPE_MASK).
template <uint32_t kMask>
void random_out(KernelContext& ctx, const char* op, Tensor& out, Distribution dist) {
  TL_KERNEL_CHECK_MSG(ctx, is_default_dim_order(out), InvalidArgument, ,
                      "%s: out must be contiguous", op);
  TL_SWITCH_FLOAT_TYPES_IN(kMask, out.dtype(), ctx, op, T,
                           [&] { fill_random<T>(ctx, out, dist); });
}

}  // namespace tailor::native
