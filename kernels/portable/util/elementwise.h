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
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Reads element `i` of `data` (of the loader's source dtype) as M.
template <typename M>
using LoadFn = M (*)(const void* data, size_t i);

template <typename M, typename S>
M load_as(const void* data, size_t i) {
  return static_cast<M>(static_cast<const S*>(data)[i]);
}

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
    TL_INTERNAL_LOAD_CASE(Bool, bool)
    TL_INTERNAL_LOAD_CASE(BFloat16, BFloat16)
  }
#undef TL_INTERNAL_LOAD_CASE
  return nullptr;
}

// x * y in M; on bool a logical and (C++ warns about `*` on bool operands).
template <typename M>
M mul_value(M x, M y) {
  if constexpr (is_same_v<M, bool>) {
    return x && y;
  } else {
    return static_cast<M>(x * y);
  }
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

// Calls f(i, idx) for every element i of `out` (contiguous), where idx[k] is the index
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
  // Per input, its stride along each out dimension; 0 where it broadcasts.
  int64_t strides[N][kMaxDims];
  for (size_t k = 0; k < N; ++k) {
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t kd = d - (rank - in[k]->dim());
      const int64_t size = kd >= 0 ? in[k]->size(kd) : 1;
      strides[k][d] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }
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

// Runs out[i] = f(in[0][.], ..., in[N-1][.]) with broadcasting: each input is loaded as
// M, f returns M, and the result is stored as Out. Reports an input dtype outside kMask
// as unselected for `op` and returns false.
template <typename M, typename Out, uint32_t kMask, size_t N, typename F>
bool apply_elementwise(KernelContext& ctx, const char* op, const Tensor* const (&in)[N],
                       Tensor& out, F&& f) {
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
  broadcast_for_each(out, in, [&](size_t i, const size_t* idx) {
    M v[N];
    for (size_t k = 0; k < N; ++k) v[k] = load[k](data[k], idx[k]);
    if constexpr (N == 1) {
      dst[i] = static_cast<Out>(f(v[0]));
    } else if constexpr (N == 2) {
      dst[i] = static_cast<Out>(f(v[0], v[1]));
    } else {
      static_assert(N == 3, "apply_elementwise takes one to three inputs");
      dst[i] = static_cast<Out>(f(v[0], v[1], v[2]));
    }
  });
  return true;
}

}  // namespace tailor::native
