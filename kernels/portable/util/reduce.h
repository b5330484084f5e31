// Reductions over a set of dims (sum, mean, amax, argmax): which dims are reduced, the
// output shape, and the walk over the input elements of each output element.
#pragma once

#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

class ReducePlan {
 public:
  // Reduces contiguous `in` over `dims` (each may be negative), or over every dim when
  // `all`. Returns false when a dim is out of range or repeated.
  bool init(const Tensor& in, const int64_t* dims, size_t n_dims, bool all, bool keepdim) {
    const int64_t rank = in.dim();
    bool reduced[kMaxDims] = {};
    for (size_t i = 0; i < n_dims && !all; ++i) {
      int64_t d = 0;
      if (!normalize_dim(dims[i], rank, &d) || (rank > 0 && reduced[d])) {
        return false;
      }
      reduced[d] = rank > 0;
    }
    int64_t sizes[kMaxDims];
    int64_t strides[kMaxDims];
    for (int64_t d = 0; d < rank; ++d) {
      sizes[d] = in.size(d);
    }
    contiguous_strides(IntArrayRef(sizes, rank), strides);
    out_rank_ = 0;
    n_kept_ = 0;
    n_reduced_ = 0;
    out_numel_ = 1;
    reduce_numel_ = 1;
    trailing_ = true;
    for (int64_t d = 0; d < rank; ++d) {
      const bool r = all || reduced[d];
      if (!r && n_reduced_ > 0 && sizes[d] != 1) trailing_ = false;
      if (!r || keepdim) {
        out_sizes_[out_rank_++] = r ? 1 : sizes[d];
      }
      if (r) {
        reduced_sizes_[n_reduced_] = sizes[d];
        reduced_strides_[n_reduced_++] = strides[d];
        reduce_numel_ *= sizes[d];
      } else {
        kept_sizes_[n_kept_] = sizes[d];
        kept_strides_[n_kept_++] = strides[d];
        out_numel_ *= sizes[d];
      }
    }
    return true;
  }

  IntArrayRef out_sizes() const { return IntArrayRef(out_sizes_, out_rank_); }
  int64_t out_numel() const { return out_numel_; }
  // Input elements per output element.
  int64_t reduce_numel() const { return reduce_numel_; }
  // Whether the reduced dims come after every kept one (of more than one element): output
  // element o reduces the contiguous run of reduce_numel() elements at o * reduce_numel().
  bool trailing() const { return trailing_; }

  // Input offset of the first element reduced into output element `out_index`.
  int64_t base_offset(int64_t out_index) const {
    int64_t offset = 0;
    for (int64_t d = n_kept_ - 1; d >= 0; --d) {
      offset += (out_index % kept_sizes_[d]) * kept_strides_[d];
      out_index /= kept_sizes_[d];
    }
    return offset;
  }

  // Calls fn(offset, position) for each input element reduced into the output element
  // whose first input offset is `base`; position counts 0, 1, ... in row-major order.
  template <typename Fn>
  void visit(int64_t base, Fn&& fn) const {
    if (reduce_numel_ == 0) {
      return;
    }
    if (n_reduced_ == 0) {
      fn(base, int64_t(0));
      return;
    }
    const int64_t inner = reduced_sizes_[n_reduced_ - 1];
    const int64_t inner_stride = reduced_strides_[n_reduced_ - 1];
    int64_t counter[kMaxDims] = {};
    int64_t offset = base;
    for (int64_t position = 0;;) {
      for (int64_t i = 0; i < inner; ++i) {
        fn(offset + i * inner_stride, position++);
      }
      int64_t d = n_reduced_ - 2;
      for (; d >= 0; --d) {
        offset += reduced_strides_[d];
        if (++counter[d] < reduced_sizes_[d]) {
          break;
        }
        offset -= reduced_strides_[d] * reduced_sizes_[d];
        counter[d] = 0;
      }
      if (d < 0) {
        return;
      }
    }
  }

 private:
  int64_t out_sizes_[kMaxDims];
  int64_t kept_sizes_[kMaxDims];
  int64_t kept_strides_[kMaxDims];
  int64_t reduced_sizes_[kMaxDims];
  int64_t reduced_strides_[kMaxDims];
  int64_t out_rank_ = 0;
  int64_t n_kept_ = 0;
  int64_t n_reduced_ = 0;
  int64_t out_numel_ = 1;
  int64_t reduce_numel_ = 1;
  bool trailing_ = true;
};

// For max-style reductions: NaN wins, as in torch.
template <typename T>
inline bool is_nan_value(T v) {
  return v != v;
}

// plan->init() for kernel `op` (self and out row-major), then `out` resized to the plan's
// sizes: false (ctx failed; "<op>: dim out of range or repeated" logged for a bad dim)
// otherwise.
inline bool plan_reduction(KernelContext& ctx, const Tensor& self, const int64_t* dims,
                           size_t n_dims, bool all, bool keepdim, const char* op, Tensor& out,
                           ReducePlan* plan) {
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self) && is_default_dim_order(out),
                  InvalidArgument, false);
  TL_KERNEL_CHECK_MSG(ctx, plan->init(self, dims, n_dims, all, keepdim), InvalidArgument,
                      false, "%s: dim out of range or repeated", op);
  TL_KERNEL_CHECK(ctx, resize_tensor(out, plan->out_sizes()) == Error::Ok, InvalidArgument,
                  false);
  return true;
}

}  // namespace tailor::native
