// scatter (src, value, reduce), scatter_add: out = self, then for every position p of
// index, out[p with p[dim] replaced by index[p]] is set to (or combined with) src[p] or a
// value. Positions are visited in row-major order, so a repeated index keeps the last
// write, as torch's CPU kernel does.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/wrap.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// How a scattered value combines with the element it lands on.
enum class ScatterReduce { None, Add, Multiply };

struct ScatterPlan {
  int64_t dim = 0;
  int64_t rank = 0;  // self's rank, at least 1 (a 0-d tensor counts as 1-d, as in torch)
  int64_t index_sizes[kMaxDims];
  int64_t self_strides[kMaxDims];
  int64_t src_strides[kMaxDims];

  // Calls f(out_offset, src_offset) for each index position, row-major.
  template <typename F>
  void for_each(const Tensor& index, F&& f) const {
    const int64_t n = static_cast<int64_t>(index.numel());
    int64_t pos[kMaxDims] = {};
    for (int64_t k = 0; k < n; ++k) {
      const int64_t at = index_value(index, static_cast<size_t>(k));
      int64_t out_offset = 0;
      int64_t src_offset = 0;
      for (int64_t d = 0; d < rank; ++d) {
        out_offset += (d == dim ? at : pos[d]) * self_strides[d];
        src_offset += pos[d] * src_strides[d];
      }
      f(out_offset, src_offset);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++pos[d] < index_sizes[d]) {
          break;
        }
        pos[d] = 0;
      }
    }
  }
};

// Parses a scatter `reduce` string ("add" or "multiply"); false for another.
inline bool parse_scatter_reduce(const char* reduce, ScatterReduce* out) {
  if (string_equal(reduce, "add")) {
    *out = ScatterReduce::Add;
  } else if (string_equal(reduce, "multiply")) {
    *out = ScatterReduce::Multiply;
  } else {
    return false;
  }
  return true;
}

// The size of `t` along d of a rank-`rank` walk (a 0-d tensor is 1-d of size 1).
inline int64_t scatter_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }

// Checks the arguments as torch does (`src` null for the value overloads), copies self
// into out (resized like self) and plans the walk. False with ctx failed. An empty index
// checks nothing more: out is self.
inline bool plan_scatter(KernelContext& ctx, const char* op, const Tensor& self, int64_t dim,
                         const Tensor& index, const Tensor* src, Tensor& out,
                         ScatterPlan* plan) {
  const int64_t rank = self.dim() > 0 ? self.dim() : 1;
  TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dim, self.dim(), &plan->dim), InvalidArgument, false,
                      "%s: dim %lld out of range for a %lld-d input", op,
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK_MSG(ctx, is_index_dtype(index.dtype()), InvalidArgument, false,
                      "%s: index must be Long or Int, got %s", op,
                      scalar_type_name(index.dtype()));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out) && (src == nullptr || same_dtype(self, *src)),
                      InvalidArgument, false, "%s: out and src must have self's dtype %s", op,
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(index) &&
                      is_default_dim_order(out) &&
                      (src == nullptr || is_default_dim_order(*src)) &&
                      rank <= static_cast<int64_t>(kMaxDims),
                  InvalidArgument, false);
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, false);
  const int64_t n = static_cast<int64_t>(index.numel());
  if (n > 0) {
    const int64_t index_rank = index.dim() > 0 ? index.dim() : 1;
    const int64_t src_rank = src == nullptr ? rank : (src->dim() > 0 ? src->dim() : 1);
    TL_KERNEL_CHECK_MSG(ctx, index_rank == rank && src_rank == rank, InvalidArgument, false,
                        "%s: index (%lld-d) and src must have self's number of dims (%lld)",
                        op, static_cast<long long>(index.dim()),
                        static_cast<long long>(self.dim()));
    plan->rank = rank;
    int64_t self_stride = 1;
    int64_t src_stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t size = scatter_size(index, d);
      TL_KERNEL_CHECK_MSG(
          ctx, (d == plan->dim || size <= scatter_size(self, d)) &&
                   (src == nullptr || size <= scatter_size(*src, d)),
          InvalidArgument, false,
          "%s: index size %lld in dim %lld exceeds self's (but in dim %lld) or src's", op,
          static_cast<long long>(size), static_cast<long long>(d),
          static_cast<long long>(plan->dim));
      plan->index_sizes[d] = size;
      plan->self_strides[d] = self_stride;
      plan->src_strides[d] = src_stride;
      self_stride *= scatter_size(self, d);
      src_stride *= src == nullptr ? 0 : scatter_size(*src, d);
    }
    const int64_t limit = scatter_size(self, plan->dim);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t at = index_value(index, static_cast<size_t>(k));
      TL_KERNEL_CHECK_MSG(ctx, at >= 0 && at < limit, InvalidArgument, false,
                          "%s: index %lld out of range for dim %lld of size %lld", op,
                          static_cast<long long>(at), static_cast<long long>(plan->dim),
                          static_cast<long long>(limit));
    }
  }
  if (out.data() != self.data() && self.nbytes() > 0) {
    __builtin_memcpy(out.data(), self.data(), self.nbytes());
  }
  return true;
}

// Combines `v` into `*dst` by `reduce` (None: replaces it), in T's compute type.
template <typename T>
inline void scatter_combine(ScatterReduce reduce, T* dst, T v) {
  using M = acc_t<T>;
  if (reduce == ScatterReduce::Add) {
    *dst = static_cast<T>(add_value(static_cast<M>(element_value(*dst)),
                                    static_cast<M>(element_value(v))));
  } else if (reduce == ScatterReduce::Multiply) {
    *dst = static_cast<T>(mul_value(static_cast<M>(element_value(*dst)),
                                    static_cast<M>(element_value(v))));
  } else {
    *dst = v;
  }
}

// Scatters src (or, with src null, `value`) into out by `reduce`. kMask: the caller's
// TL_SELECTED_DTYPE_MASK.
template <uint32_t kMask>
void scatter_values(KernelContext& ctx, const char* op, const ScatterPlan& plan,
                    const Tensor& index, const Tensor* src, const Scalar* value,
                    ScatterReduce reduce, Tensor& out) {
  TL_SWITCH_ALL_TYPES_IN(kMask, out.dtype(), ctx, op, T, [&] {
    T* dst = out.mutable_data<T>();
    if (src != nullptr) {
      const T* from = src->const_data<T>();
      plan.for_each(index, [&](int64_t o, int64_t s) { scatter_combine(reduce, dst + o, from[s]); });
    } else {
      const T v = static_cast<T>(value->to<acc_t<T>>());
      plan.for_each(index, [&](int64_t o, int64_t) { scatter_combine(reduce, dst + o, v); });
    }
  });
}

}  // namespace tailor::native
