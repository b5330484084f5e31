// The optimized elementwise and row kernels over the kernel threads: chunks of a flat
// span or of whole rows, by the cost rule (KernelContext::parallel_range,
// runtime/kernel/parallel.h). A chunk computes each element as one thread would, so the
// results do not depend on the threads.
#pragma once

#include <stdint.h>

#include "kernels/optimized/util/vec.h"
#include "runtime/kernel/kernel_context.h"

namespace tailor::optimized {

// Cost rule units an element takes: a load, an operation and a store; a polynomial exp,
// erf or tanh and what goes around it (softmax, GELU, sigmoid).
inline constexpr int64_t kVecCostSimple = 1;
inline constexpr int64_t kVecCostPolynomial = 16;

// Elements in a chunk of a flat span are a multiple of this: whole vectors of every level
// (so a chunk's ragged end is the span's own) and whole cache lines (no line written by
// two threads).
inline constexpr int64_t kVecGrain = 64;

/// vec_run<Body>(in + begin, out + begin, end - begin, args...) over chunks [begin, end)
/// of n elements of `cost` each.
template <class Body, class... Args>
void vec_parallel_span(KernelContext& ctx, int64_t n, int64_t cost, const float* in,
                       float* out, Args... args) {
  ctx.parallel_range(
      n, cost,
      [&](int64_t begin, int64_t end, KernelScratch&) {
        vec_run<Body>(in + begin, out + begin, end - begin, args...);
      },
      kVecGrain);
}

}  // namespace tailor::optimized
