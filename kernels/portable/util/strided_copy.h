// Gathers a strided view of a tensor into contiguous memory: the one loop behind
// permute/transpose/t, expand, slice, select and split copies (and, written the other
// way, slice_scatter).
#pragma once

#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// A view: out coordinate c reads src[offset + sum(c[d] * strides[d])] (in elements; a
// stride of 0 repeats, as in expand).
struct StridedView {
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];
  int64_t rank = 0;
  int64_t offset = 0;
};

// Merges neighbouring dims that walk memory as one (stride[d] == stride[d+1] * size[d+1])
// and drops size-1 dims, so the inner loop runs as long as possible. Leaves rank >= 1.
inline void coalesce_view(StridedView& v) {
  int64_t rank = 0;
  for (int64_t d = 0; d < v.rank; ++d) {
    if (v.sizes[d] == 1) {
      continue;
    }
    if (rank > 0 && v.strides[rank - 1] == v.strides[d] * v.sizes[d]) {
      v.sizes[rank - 1] *= v.sizes[d];
      v.strides[rank - 1] = v.strides[d];
    } else {
      v.sizes[rank] = v.sizes[d];
      v.strides[rank] = v.strides[d];
      ++rank;
    }
  }
  if (rank == 0) {
    v.sizes[0] = 1;
    v.strides[0] = 1;
    rank = 1;
  }
  v.rank = rank;
}

// Walks the view `v` row by row in row-major order: fn(view_offset, flat_offset, inner,
// inner_stride) for each run of `inner` elements, the view's starting at view_offset,
// inner_stride apart, matching contiguous elements from flat_offset on.
template <typename Fn>
void for_each_view_row(StridedView v, Fn&& fn) {
  for (int64_t d = 0; d < v.rank; ++d) {
    if (v.sizes[d] == 0) {
      return;
    }
  }
  coalesce_view(v);
  const int64_t inner = v.sizes[v.rank - 1];
  const int64_t inner_stride = v.strides[v.rank - 1];
  int64_t counter[kMaxDims] = {};
  int64_t base = v.offset;
  for (int64_t flat = 0;; flat += inner) {
    fn(base, flat, inner, inner_stride);
    // Step the outer dims like an odometer.
    int64_t d = v.rank - 2;
    for (; d >= 0; --d) {
      base += v.strides[d];
      if (++counter[d] < v.sizes[d]) {
        break;
      }
      base -= v.strides[d] * v.sizes[d];
      counter[d] = 0;
    }
    if (d < 0) {
      return;
    }
  }
}

// Copies between the view `v` and contiguous memory: from the view of `src` into
// contiguous `dst` (kIntoView false), or from contiguous `src` into the view of `dst`.
template <bool kIntoView, typename W>
void view_transfer(const W* src, W* dst, const StridedView& v) {
  for_each_view_row(v, [&](int64_t at, int64_t flat, int64_t inner, int64_t stride) {
    const W* from = src + (kIntoView ? flat : at);
    W* to = dst + (kIntoView ? at : flat);
    if (stride == 1) {
      __builtin_memcpy(to, from, static_cast<size_t>(inner) * sizeof(W));
      return;
    }
    for (int64_t i = 0; i < inner; ++i) {
      to[kIntoView ? i * stride : i] = from[kIntoView ? i : i * stride];
    }
  });
}

// Copies the view `v` of `src` into contiguous `dst`, walking `dst` in order.
template <typename W>
void strided_copy(const W* src, W* dst, const StridedView& v) {
  view_transfer<false>(src, dst, v);
}

// The reverse: writes contiguous `src` into the view `v` of `dst`.
template <typename W>
void strided_write(const W* src, W* dst, const StridedView& v) {
  view_transfer<true>(src, dst, v);
}

// Contiguous tensor `t` as a view of itself: its sizes and row-major strides.
inline StridedView contiguous_view(const Tensor& t) {
  StridedView v;
  v.rank = t.dim();
  for (int64_t d = 0; d < v.rank; ++d) {
    v.sizes[d] = t.size(d);
  }
  contiguous_strides(IntArrayRef(v.sizes, static_cast<size_t>(v.rank)), v.strides);
  return v;
}

// The view of contiguous `t` that keeps `length` entries of dim `dim` (a valid dim),
// from `start`, every `step`-th.
inline StridedView slice_view(const Tensor& t, int64_t dim, int64_t start, int64_t length,
                              int64_t step) {
  StridedView v = contiguous_view(t);
  v.offset = start * v.strides[dim];
  v.sizes[dim] = length;
  v.strides[dim] *= step;
  return v;
}

// The dim `*d` and position `*at` that select self[..., index, ...] in dim `dim` (both
// negative from the end); false (ctx failed, naming `op`) when either is out of range.
inline bool select_position(KernelContext& ctx, const char* op, const Tensor& self,
                            int64_t dim, int64_t index, int64_t* d, int64_t* at) {
  TL_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && normalize_dim(dim, self.dim(), d),
                      InvalidArgument, false, "%s: dim %lld out of range for a %lld-d input",
                      op, static_cast<long long>(dim), static_cast<long long>(self.dim()));
  const int64_t size = self.size(*d);
  *at = index < 0 ? index + size : index;
  TL_KERNEL_CHECK_MSG(ctx, *at >= 0 && *at < size, InvalidArgument, false,
                      "%s: index %lld out of range for size %lld", op,
                      static_cast<long long>(index), static_cast<long long>(size));
  return true;
}

// The view t[..., at, ...] of contiguous `t` (`at` in dim `dim`, both valid): the slice
// of length 1 at `at`, without dim `dim`.
inline StridedView select_view(const Tensor& t, int64_t dim, int64_t at) {
  StridedView v = slice_view(t, dim, at, 1, 1);
  for (int64_t i = dim; i + 1 < v.rank; ++i) {
    v.sizes[i] = v.sizes[i + 1];
    v.strides[i] = v.strides[i + 1];
  }
  --v.rank;
  return v;
}

// The view self[..., start:end:step, ...] along `dim` (a valid dim; step > 0) as Python
// slices it: negative bounds count from the end, bounds outside the dim are clamped, an
// empty range has length 0.
inline StridedView python_slice_view(const Tensor& t, int64_t dim, Optional<int64_t> start,
                                     Optional<int64_t> end, int64_t step) {
  const int64_t size = t.size(dim);
  int64_t first = start.value_or(0);
  int64_t last = end.value_or(size);
  first = first < 0 ? first + size : first;
  last = last < 0 ? last + size : last;
  first = first < 0 ? 0 : (first > size ? size : first);
  last = last < first ? first : (last > size ? size : last);
  const int64_t length = last == first ? 0 : (last - first - 1) / step + 1;
  return slice_view(t, dim, first, length, step);
}

// slice_scatter and select_scatter: out = self with src written over the view `v` of it
// (one copy of self, then src). False (ctx failed, naming `op`) when src does not have
// the view's shape `what` names; kMask: the calling kernel's selected dtypes.
template <uint32_t kMask>
bool scatter_into_view(KernelContext& ctx, const char* op, const Tensor& self,
                       const Tensor& src, const StridedView& v, const char* what, Tensor& out) {
  bool fits = src.dim() == v.rank;
  for (int64_t i = 0; fits && i < v.rank; ++i) {
    fits = src.size(i) == v.sizes[i];
  }
  TL_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, false, "%s: src must have %s", op, what);
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, false);
  const bool ran = dispatch_element_word<kMask>(self.dtype(), [&](auto word) {
    using W = decltype(word);
    if (out.data() != self.data() && self.nbytes() > 0) {
      __builtin_memcpy(out.data(), self.data(), self.nbytes());
    }
    strided_write(static_cast<const W*>(src.data()), static_cast<W*>(out.data()), v);
  });
  if (!ran) {
    internal::report_dtype_unselected(ctx, TL_INTERNAL_OP_NAME(op), self.dtype());
  }
  return ran;
}

}  // namespace tailor::native
