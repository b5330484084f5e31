// Vectors of W floats for the optimized row and elementwise kernels (softmax, layer norm,
// GELU), written once in GNU vector C++ and compiled per instruction-set level:
//
//   struct GeluBody { template <int W> TL_VEC_INLINE static void run(...) {...} };
//   vec_run<GeluBody>(in, out, n);   // W = 16 (AVX-512), 8 (AVX2+FMA), 4 (baseline)
//
// vec_run() calls Body::run<W> inside a function compiled for the level cpu_level()
// allows (a target attribute, as the GEMM's micro-kernels), so the runtime stays
// compiled for the architecture's baseline and no CPU meets an instruction it lacks.
// Everything a body calls is always inlined into that function: a vector never crosses
// a call, whose ABI would depend on the level. Helpers therefore take vectors by
// reference (GCC warns about by-value vector arguments of a level the caller lacks).
#pragma once

#include <stdint.h>

#include "runtime/kernel/cpu_level.h"

#define TL_VEC_INLINE __attribute__((always_inline)) inline

namespace tailor::optimized {

template <int W>
struct Vec {
  typedef float F __attribute__((vector_size(4 * W)));
  typedef int32_t I __attribute__((vector_size(4 * W)));
};

// A scalar broadcasts in arithmetic with a vector: `v * 2.0f`, and `VecF<W>{} + x` is W
// lanes of x.
template <int W>
using VecF = typename Vec<W>::F;

template <int W>
TL_VEC_INLINE void vec_load(const float* p, VecF<W>& v) {
  __builtin_memcpy(&v, p, sizeof(v));  // unaligned: one vmovups
}

template <int W>
TL_VEC_INLINE void vec_store(float* p, const VecF<W>& v) {
  __builtin_memcpy(p, &v, sizeof(v));
}

// v = lanes 0, 2, 4, ... of lo then of hi (a shuffle with constant lanes: one
// instruction); v may be lo.
template <int W>
TL_VEC_INLINE void vec_even_lanes(const VecF<W>& lo, const VecF<W>& hi, VecF<W>& v) {
#if defined(__clang__)
  if constexpr (W == 16) {
    v = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                30);
  } else if constexpr (W == 8) {
    v = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14);
  } else {
    static_assert(W == 4, "vector widths are 4, 8 and 16 floats");
    v = __builtin_shufflevector(lo, hi, 0, 2, 4, 6);
  }
#else
  typename Vec<W>::I even;
  for (int l = 0; l < W; ++l) even[l] = 2 * l;
  v = __builtin_shuffle(lo, hi, even);
#endif
}

// lo = a0 b0 a1 b1 ... (the first W / 2 lanes of each), hi = the same of the last W / 2:
// two rows of results stored as one row of alternating columns.
template <int W>
TL_VEC_INLINE void vec_interleave(const VecF<W>& a, const VecF<W>& b, VecF<W>& lo,
                                  VecF<W>& hi) {
#if defined(__clang__)
  if constexpr (W == 16) {
    lo = __builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    hi = __builtin_shufflevector(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30,
                                 15, 31);
  } else if constexpr (W == 8) {
    lo = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
    hi = __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
  } else {
    static_assert(W == 4, "vector widths are 4, 8 and 16 floats");
    lo = __builtin_shufflevector(a, b, 0, 4, 1, 5);
    hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  }
#else
  typename Vec<W>::I first, second;
  for (int l = 0; l < W; ++l) {
    first[l] = l / 2 + (l % 2) * W;
    second[l] = W / 2 + l / 2 + (l % 2) * W;
  }
  lo = __builtin_shuffle(a, b, first);
  hi = __builtin_shuffle(a, b, second);
#endif
}

// rows[i][j] becomes rows[j][i] (a W x W transpose): log2(W) rounds of interleaving row i
// with row i + W / 2, each round's lo into row 2i and hi into row 2i + 1.
template <int W>
TL_VEC_INLINE void vec_transpose(VecF<W> (&rows)[W]) {
#pragma GCC unroll 4
  for (int round = 1; round < W; round *= 2) {
    VecF<W> next[W];
#pragma GCC unroll 16
    for (int i = 0; i < W / 2; ++i) {
      vec_interleave<W>(rows[i], rows[i + W / 2], next[2 * i], next[2 * i + 1]);
    }
#pragma GCC unroll 16
    for (int i = 0; i < W; ++i) rows[i] = next[i];
  }
}

// Columns t * stride of p for t < W, stride 1 or 2, as contiguous loads (a gather lane by
// lane costs a store-forwarding stall): stride 2 takes the even lanes of two vectors, so
// p[0 .. 2W) must be readable.
template <int W>
TL_VEC_INLINE void vec_load_every(const float* p, int64_t stride, VecF<W>& v) {
  vec_load<W>(p, v);
  if (stride == 2) {
    VecF<W> hi;
    vec_load<W>(p + W, hi);
    vec_even_lanes<W>(v, hi, v);
  }
}

// p[0 .. n) = value: whole vectors, the rest by halves of them (the short runs of a
// convolution's small planes), then one by one.
template <int W>
TL_VEC_INLINE void vec_fill(float* p, int64_t n, float value) {
  const VecF<W> v = VecF<W>{} + value;
  int64_t i = 0;
  for (; i + W <= n; i += W) vec_store<W>(p + i, v);
  if constexpr (W > 4) {
    vec_fill<W / 2>(p + i, n - i, value);
  } else {
    for (; i < n; ++i) p[i] = value;
  }
}

// dst[t] = src[t * stride] for t < n, by vectors while src stays below src + readable
// (vec_load_every() reads ahead for stride 2), the rest by halves of them, then one by
// one; any stride.
template <int W>
TL_VEC_INLINE void vec_copy_every(const float* src, int64_t stride, int64_t readable, float* dst,
                                  int64_t n) {
  int64_t t = 0;
  if (stride <= 2) {
    for (; t + W <= n && (t + W) * stride <= readable; t += W) {
      VecF<W> v;
      vec_load_every<W>(src + t * stride, stride, v);
      vec_store<W>(dst + t, v);
    }
  }
  if constexpr (W > 4) {
    vec_copy_every<W / 2>(src + t * stride, stride, readable - t * stride, dst + t, n - t);
  } else {
    for (; t < n; ++t) dst[t] = src[t * stride];
  }
}

// dst[0 .. n) = src[0 .. n): whole vectors, the last one ending at n (over lanes already
// copied) rather than lane by lane; by halves of W when n is under W.
template <int W>
TL_VEC_INLINE void vec_copy(const float* src, float* dst, int64_t n) {
  if constexpr (W > 4) {
    if (n < W) return vec_copy<W / 2>(src, dst, n);
  }
  VecF<W> v;
  if (n < W) {  // under 4
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
    return;
  }
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    vec_load<W>(src + i, v);
    vec_store<W>(dst + i, v);
  }
  if (i < n) {
    vec_load<W>(src + n - W, v);
    vec_store<W>(dst + n - W, v);
  }
}

// The first `count` (< W) lanes from p, the others `fill`: a row's ragged end.
template <int W>
TL_VEC_INLINE void vec_load_partial(const float* p, int64_t count, float fill, VecF<W>& v) {
  v = VecF<W>{} + fill;
  for (int64_t i = 0; i < count; ++i) v[i] = p[i];
}

template <int W>
TL_VEC_INLINE void vec_store_partial(float* p, int64_t count, const VecF<W>& v) {
  for (int64_t i = 0; i < count; ++i) p[i] = v[i];
}

// The lower and upper halves of v (W > 4).
template <int W>
TL_VEC_INLINE void vec_halves(const VecF<W>& v, VecF<W / 2>& lo, VecF<W / 2>& hi) {
  __builtin_memcpy(&lo, &v, sizeof(lo));
  __builtin_memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof(lo), sizeof(hi));
}

// The sum of v's lanes by halving (a tree of log2 W vector adds, not W - 1 dependent
// scalar ones: a softmax row of 64 waits on this reduction twice).
template <int W>
TL_VEC_INLINE float vec_sum(const VecF<W>& v) {
  if constexpr (W > 4) {
    VecF<W / 2> lo;
    VecF<W / 2> hi;
    vec_halves<W>(v, lo, hi);
    return vec_sum<W / 2>(lo + hi);
  } else {
    static_assert(W == 4, "vector widths are 4, 8 and 16 floats");
    return (v[0] + v[2]) + (v[1] + v[3]);
  }
}

// Sum of the n floats at p, W lanes at a time, minus `shift` from each first (squared
// when `square`): a row's sum (a mean), then its squared deviations from the mean.
template <int W>
TL_VEC_INLINE float vec_row_sum(const float* p, int64_t n, float shift = 0.0f,
                                bool square = false) {
  using F = VecF<W>;
  const F vshift = F{} + shift;
  F acc = F{};
  F v;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    vec_load<W>(p + i, v);
    v -= vshift;
    acc += square ? v * v : v;
  }
  float sum = vec_sum<W>(acc);
  for (; i < n; ++i) {
    const float d = p[i] - shift;
    sum += square ? d * d : d;
  }
  return sum;
}

// The largest of v's lanes, by halving as vec_sum().
template <int W>
TL_VEC_INLINE float vec_max(const VecF<W>& v) {
  if constexpr (W > 4) {
    VecF<W / 2> lo;
    VecF<W / 2> hi;
    vec_halves<W>(v, lo, hi);
    return vec_max<W / 2>(hi > lo ? hi : lo);
  } else {
    static_assert(W == 4, "vector widths are 4, 8 and 16 floats");
    const float a = v[1] > v[0] ? v[1] : v[0];
    const float b = v[3] > v[2] ? v[3] : v[2];
    return b > a ? b : a;
  }
}

template <int W>
TL_VEC_INLINE void vec_max_into(VecF<W>& acc, const VecF<W>& v) {
  acc = v > acc ? v : acc;
}

#if defined(__x86_64__)
template <class Body, class... Args>
__attribute__((target("avx512f,avx2,fma"))) void vec_run_avx512(Args... args) {
  Body::template run<16>(args...);
}

template <class Body, class... Args>
__attribute__((target("avx2,fma"))) void vec_run_avx2(Args... args) {
  Body::template run<8>(args...);
}
#endif

template <class Body, class... Args>
void vec_run_baseline(Args... args) {
  Body::template run<4>(args...);
}

/// Runs Body::run<W>(args...) at the widest vector width cpu_level() allows (16 floats
/// with AVX-512, 8 with AVX2+FMA, else 4: SSE2 on x86-64, NEON on aarch64).
template <class Body, class... Args>
void vec_run(Args... args) {
#if defined(__x86_64__)
  const CpuLevel level = cpu_level();
  if constexpr (kCpuLevelCeiling >= CpuLevel::Avx512) {
    if (level >= CpuLevel::Avx512) return vec_run_avx512<Body>(args...);
  }
  if constexpr (kCpuLevelCeiling >= CpuLevel::Avx2) {
    if (level >= CpuLevel::Avx2) return vec_run_avx2<Body>(args...);
  }
#endif
  vec_run_baseline<Body>(args...);
}

}  // namespace tailor::optimized
