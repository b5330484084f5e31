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

constexpr int64_t kBlock = 16384;  // elements per parallel task

template <typename T>
struct Job {
  T* data;
  int64_t numel;
  uint64_t key;
  Distribution dist;
};

template <typename T>
void fill_block(void* context, int64_t block, KernelScratch&) {
  const Job<T>& job = *static_cast<const Job<T>*>(context);
  const int64_t end = (block + 1) * kBlock < job.numel ? (block + 1) * kBlock : job.numel;
  for (int64_t n = block * kBlock; n < end; ++n) {
    job.data[n] = random_element<T>(job.key, static_cast<uint64_t>(n), job.dist);
  }
}

}  // namespace random_fill_detail

// Fills `out` (contiguous) from the call's stream, on the context's threads.
template <typename T>
void fill_random(KernelContext& ctx, Tensor& out, Distribution dist) {
  using random_fill_detail::kBlock;
  random_fill_detail::Job<T> job{out.mutable_data<T>(), static_cast<int64_t>(out.numel()),
                                 ctx.random_key(), dist};
  ctx.parallel_for((job.numel + kBlock - 1) / kBlock, &random_fill_detail::fill_block<T>, &job);
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
