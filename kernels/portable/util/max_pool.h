// max_pool2d_with_indices shared by portable's kernel and the optimized one
// (kernels/{portable,optimized}/op_max_pool2d_with_indices.cpp): the checks and resize,
// each output row's clipped rows of taps, and one window's maximum.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/pool.h"
#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

/// Validates max_pool2d_with_indices.out's arguments and resizes out and indices; fills
/// `in` and `w`. False (after failing ctx, with the reason logged) on bad input.
inline bool check_max_pool2d_with_indices(KernelContext& ctx, const Tensor& self,
                                          IntArrayRef kernel_size, IntArrayRef stride,
                                          IntArrayRef padding, IntArrayRef dilation,
                                          bool ceil_mode, Tensor& out, Tensor& indices,
                                          PoolPlanes* in, PoolWindow* w) {
  const char* problem = read_pool_input(self, false, in);
  if (problem == nullptr) {
    problem = read_pool_window(*in, kernel_size, stride, padding, dilation, ceil_mode, w);
  }
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, false,
                      "max_pool2d_with_indices.out: %s", problem);
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out) && indices.dtype() == ScalarType::Long,
                      InvalidArgument, false,
                      "max_pool2d_with_indices.out: out must have self's dtype and indices "
                      "must be Long");
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(out) &&
                      is_default_dim_order(indices),
                  InvalidArgument, false);
  const IntArrayRef out_sizes = in->set_out(self, w->out_h, w->out_w);
  TL_KERNEL_CHECK(ctx,
                  resize_tensor(out, out_sizes) == Error::Ok &&
                      resize_tensor(indices, out_sizes) == Error::Ok,
                  InvalidArgument, false);
  return true;
}

/// The first tap of a window along one dim that lies inside the input, for a window
/// starting at `start` (may be in the padding) with taps `dilation` apart.
inline int64_t max_pool_first_tap(int64_t start, int64_t dilation) {
  return start >= 0 ? start : start + (-start + dilation - 1) / dilation * dilation;
}

/// The end (exclusive, clipped to `in`) of the taps of a window starting at `start`.
inline int64_t max_pool_tap_end(int64_t start, int64_t kernel, int64_t dilation, int64_t in) {
  const int64_t end = start + (kernel - 1) * dilation + 1;
  return end < in ? end : in;
}

/// The maximum of output cell (rows [h0, h1), column ow) of the plane `src` and its index
/// in the plane, into *dst and *idx. As in torch, the first maximum wins ties and the last
/// NaN beats everything; a window only over padding gives the lowest value and the index
/// of its first tap past the padding.
template <typename T>
inline void max_pool_cell(const T* src, int64_t in_w, const PoolWindow& w, int64_t h0,
                          int64_t h1, int64_t ow, T* dst, int64_t* idx) {
  using Acc = acc_t<T>;
  const int64_t start = ow * w.stride_w - w.pad_w;
  const int64_t w0 = max_pool_first_tap(start, w.dilation_w);
  const int64_t w1 = max_pool_tap_end(start, w.kernel_w, w.dilation_w, in_w);
  Acc best = lowest_value<Acc>();
  int64_t best_at = h0 * in_w + w0;
  for (int64_t h = h0; h < h1; h += w.dilation_h) {
    const T* row = src + h * in_w;
    for (int64_t x = w0; x < w1; x += w.dilation_w) {
      const Acc v = static_cast<Acc>(row[x]);
      if (v > best || is_nan_value(v)) {
        best = v;
        best_at = h * in_w + x;
      }
    }
  }
  *dst = static_cast<T>(best);
  *idx = best_at;
}

}  // namespace tailor::native
