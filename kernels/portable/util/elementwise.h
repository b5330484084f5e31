// Elementwise kernels: loading an element of any dtype as the compute type, broadcast
// iteration, and apply helpers that run a function over one, two or three tensors.
//
// A kernel switches (TL_SWITCH_*) over its compute dtype only; input elements of other
// dtypes are converted on load by a small function picked once per call (load_fn). The
// loaders a kernel may pick are limited to the dtypes selected for its op, so a build
// carries only the conversions its programs use, and an unselected input dtype is
// reported like an unselected compute dtype.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/wrap.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// An element as its value; a Bool element as its byte != 0 (see bool_element.h).
template <typename S>
inline auto load_element(const S* p) {
  return element_value(*p);
}

#if defined(__OPTIMIZE_SIZE__)
// Size builds (-Os) convert one element per call: the least code.
template <typename M>
using LoadFn = M (*)(const void* data, size_t i);

template <typename M, typename S>
M load_as(const void* data, size_t i) {
  return cast_element<M>(load_element(static_cast<const S*>(data) + i));
}
#else
// Speed builds convert n elements per call into out[0, n): the elements start at index
// `start` and lie `stride` apart (0: one element, repeated). The indirect call is then
// off the per-element path, and both this loop (versioned for stride 1 at -O3) and the
// one applying the op over the converted chunk vectorize.
template <typename M>
using LoadFn = void (*)(const void* data, size_t start, ptrdiff_t stride, size_t n, M* out);

template <typename M, typename S>
void load_as(const void* data, size_t start, ptrdiff_t stride, size_t n, M* out) {
  const S* src = static_cast<const S*>(data) + start;
  for (size_t j = 0; j < n; ++j) {
    out[j] = cast_element<M>(load_element(src + static_cast<ptrdiff_t>(j) * stride));
  }
}
#endif

// The loader from `dtype` to M, or nullptr when `dtype` is not in kMask.
template <typename M, uint32_t kMask>
LoadFn<M> load_fn(ScalarType dtype) {
#define TL_INTERNAL_LOAD_CASE(NAME, CTYPE)                                    \
  case ScalarType::NAME:                                                      \
    if constexpr ((kMask >> static_cast<int>(ScalarType::NAME)) & 1u) {       \
      return &load_as<M, CTYPE>;                                              \
    }                                                                         \
    return nullptr;
  switch (dtype) {
    TL_INTERNAL_LOAD_CASE(Byte, uint8_t)
    TL_INTERNAL_LOAD_CASE(Char, int8_t)
    TL_INTERNAL_LOAD_CASE(Short, int16_t)
    TL_INTERNAL_LOAD_CASE(Int, int32_t)
    TL_INTERNAL_LOAD_CASE(Long, int64_t)
    TL_INTERNAL_LOAD_CASE(Half, Half)
    TL_INTERNAL_LOAD_CASE(Float, float)
    TL_INTERNAL_LOAD_CASE(Double, double)
    TL_INTERNAL_LOAD_CASE(Bool, Bool)
    TL_INTERNAL_LOAD_CASE(BFloat16, BFloat16)
  }
#undef TL_INTERNAL_LOAD_CASE
  return nullptr;
}

// Writes the broadcast of the sizes of `n` tensors to `sizes` and its rank to `rank`;
// false when they do not broadcast.
inline bool broadcast_sizes(const Tensor* const* tensors, size_t n, int64_t* sizes,
                            int64_t* rank) {
  int64_t r = 0;
  for (size_t t = 0; t < n; ++t) {
    r = tensors[t]->dim() > r ? tensors[t]->dim() : r;
  }
  if (r > static_cast<int64_t>(kMaxDims)) return false;
  for (int64_t d = 0; d < r; ++d) {
    int64_t size = 1;
    for (size_t t = 0; t < n; ++t) {
      const int64_t td = d - (r - tensors[t]->dim());  // aligned on the last dimension
      if (td < 0) continue;
      const int64_t s = tensors[t]->size(td);
      if (s != 1 && size != 1 && s != size) return false;
      size = s == 1 ? size : s;
    }
    sizes[d] = size;
  }
  *rank = r;
  return true;
}

// Resizes `out` to the broadcast of `tensors`; false when they do not broadcast or
// `out` cannot take that shape.
inline bool resize_to_broadcast(Tensor& out, const Tensor* const* tensors, size_t n) {
  int64_t sizes[kMaxDims];
  int64_t rank = 0;
  return broadcast_sizes(tensors, n, sizes, &rank) &&
         resize_tensor(out, IntArrayRef(sizes, static_cast<size_t>(rank))) == Error::Ok;
}

// Writes, per input, its stride along each dimension of `out` (contiguous, of the
// broadcast shape of `in`): 0 where the input broadcasts.
template <size_t N>
void broadcast_strides(const Tensor& out, const Tensor* const (&in)[N],
                       int64_t (&strides)[N][kMaxDims]) {
  const int64_t rank = out.dim();
  for (size_t k = 0; k < N; ++k) {
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t kd = d - (rank - in[k]->dim());
      const int64_t size = kd >= 0 ? in[k]->size(kd) : 1;
      strides[k][d] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }
}

#if defined(__OPTIMIZE_SIZE__)
// Size builds: calls f(i, idx) for every element i of `out` (contiguous), where idx[k] is the index
// of the element of in[k] that broadcasts to it. `out` must have the broadcast shape.
template <size_t N, typename F>
void broadcast_for_each(const Tensor& out, const Tensor* const (&in)[N], F&& f) {
  const size_t numel = out.numel();
  const int64_t rank = out.dim();
  bool same = true;
  for (size_t k = 0; k < N; ++k) {
    same = same && in[k]->sizes().equals(out.sizes());
  }
  size_t idx[N] = {};
  if (same) {  // no broadcasting: every index is i
    for (size_t i = 0; i < numel; ++i) {
      for (size_t k = 0; k < N; ++k) idx[k] = i;
      f(i, idx);
    }
    return;
  }
  int64_t strides[N][kMaxDims];
  broadcast_strides(out, in, strides);
  int64_t counter[kMaxDims] = {};
  for (size_t i = 0; i < numel; ++i) {
    f(i, idx);
    for (int64_t d = rank - 1; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k) idx[k] += strides[k][d];
      if (++counter[d] < out.size(d)) break;
      for (size_t k = 0; k < N; ++k) idx[k] -= strides[k][d] * out.size(d);
      counter[d] = 0;
    }
  }
}

#else
// Speed builds: splits `out` (contiguous, of the broadcast shape of `in`) into runs and calls
// f(i, idx, step, length) for each: out elements [i, i + length) take in[k]'s elements
// from index idx[k] on, step[k] apart (0 where in[k] broadcasts). Without broadcasting
// the whole tensor is one run; otherwise a run is a row of the last dimension.
template <size_t N, typename F>
void for_each_run(const Tensor& out, const Tensor* const (&in)[N], F&& f) {
  const size_t numel = out.numel();
  if (numel == 0) return;
  size_t idx[N] = {};
  ptrdiff_t step[N];
  bool same = true;
  for (size_t k = 0; k < N; ++k) {
    same = same && in[k]->sizes().equals(out.sizes());
    step[k] = 1;
  }
  if (same) {
    f(size_t{0}, idx, step, numel);
    return;
  }
  const int64_t rank = out.dim();
  int64_t strides[N][kMaxDims];
  broadcast_strides(out, in, strides);
  const int64_t last = rank - 1;
  const size_t length = static_cast<size_t>(out.size(last));
  for (size_t k = 0; k < N; ++k) step[k] = static_cast<ptrdiff_t>(strides[k][last]);
  int64_t counter[kMaxDims] = {};
  for (size_t i = 0; i < numel; i += length) {
    f(i, idx, step, length);
    for (int64_t d = last - 1; d >= 0; --d) {  // next row: an odometer over the outer dims
      for (size_t k = 0; k < N; ++k) idx[k] += strides[k][d];
      if (++counter[d] < out.size(d)) break;
      for (size_t k = 0; k < N; ++k) idx[k] -= strides[k][d] * out.size(d);
      counter[d] = 0;
    }
  }
}

#endif

#if !defined(__OPTIMIZE_SIZE__)
// o[j] = f(v[0][j], ...) for j < n. The out row never overlaps the rows v (the caller
// sees to it); saying so (and reading f's captures from a local copy) lets the compiler
// vectorize.
template <typename M, typename Out, size_t N, typename F>
__attribute__((always_inline)) inline void apply_chunk(Out* __restrict o,
                                                       const M* const (&v)[N], size_t n,
                                                       const F& f) {
  const F fn = f;
  const M* __restrict v0 = v[0];
  if constexpr (N == 1) {
    for (size_t j = 0; j < n; ++j) o[j] = cast_element<Out>(fn(v0[j]));
  } else if constexpr (N == 2) {
    const M* __restrict v1 = v[1];
    for (size_t j = 0; j < n; ++j) o[j] = cast_element<Out>(fn(v0[j], v1[j]));
  } else {
    const M* __restrict v1 = v[1];
    const M* __restrict v2 = v[2];
    for (size_t j = 0; j < n; ++j) o[j] = cast_element<Out>(fn(v0[j], v1[j], v2[j]));
  }
}
#endif

// Runs out[i] = f(in[0][.], ..., in[N-1][.]) with broadcasting: each input is loaded as
// M, f returns M, and the result is stored as Out. Reports an input dtype outside kMask
// as unselected for `op` and returns false.
template <typename M, typename Out, uint32_t kMask, size_t N, typename F>
bool apply_elementwise(KernelContext& ctx, const char* op, const Tensor* const (&in)[N],
                       Tensor& out, F&& f) {
  static_assert(N >= 1 && N <= 3, "apply_elementwise takes one to three inputs");
  LoadFn<M> load[N];
  const void* data[N];
  for (size_t k = 0; k < N; ++k) {
    load[k] = load_fn<M, kMask>(in[k]->dtype());
    data[k] = in[k]->data();
    if (load[k] == nullptr) {
      internal::report_dtype_unselected(ctx, TL_INTERNAL_OP_NAME(op), in[k]->dtype());
      return false;
    }
  }
  Out* dst = out.mutable_data<Out>();
#if defined(__OPTIMIZE_SIZE__)
  broadcast_for_each(out, in, [&](size_t i, const size_t* idx) {
    M v[N];
    for (size_t k = 0; k < N; ++k) v[k] = load[k](data[k], idx[k]);
    if constexpr (N == 1) {
      dst[i] = cast_element<Out>(f(v[0]));
    } else if constexpr (N == 2) {
      dst[i] = cast_element<Out>(f(v[0], v[1]));
    } else {
      dst[i] = cast_element<Out>(f(v[0], v[1], v[2]));
    }
  });
#else
  // Inputs are converted a chunk at a time into stack buffers, then f runs over them;
  // elements already of type M, one after another and clear of the out row, are read
  // where they are instead.
  constexpr size_t kChunk = 64;
  bool of_type_m[N];
  for (size_t k = 0; k < N; ++k) of_type_m[k] = load[k] == &load_as<M, M>;
  for_each_run(out, in, [&](size_t i, const size_t* idx, const ptrdiff_t* step, size_t length) {
    M v[N][kChunk];
    const M* src[N];
    for (size_t c = 0; c < length; c += kChunk) {
      const size_t n = length - c < kChunk ? length - c : kChunk;
      Out* o = dst + i + c;
      for (size_t k = 0; k < N; ++k) {
        const size_t start = idx[k] + c * static_cast<size_t>(step[k]);
        if (of_type_m[k] && step[k] == 1) {
          const M* direct = static_cast<const M*>(data[k]) + start;
          if (reinterpret_cast<const void*>(direct + n) <= o ||
              reinterpret_cast<const void*>(o + n) <= direct) {
            src[k] = direct;
            continue;
          }
        }
        load[k](data[k], start, step[k], n, v[k]);
        src[k] = v[k];
      }
      // A whole chunk gets a loop of constant length: at -O2 the compiler vectorizes
      // only loops whose trip count it knows.
      if (n == kChunk) {
        apply_chunk<M, Out, N>(o, src, kChunk, f);
      } else {
        apply_chunk<M, Out, N>(o, src, n, f);
      }
    }
  });
#endif
  return true;
}

}  // namespace tailor::native
