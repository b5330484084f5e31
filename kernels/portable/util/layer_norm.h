// Shared validation of native_layer_norm (portable, and optimized's Float kernel).
#pragma once

#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Whether an optional weight or bias fits: absent, or `count` elements of `dtype`.
inline bool layer_norm_affine_ok(const Tensor* t, int64_t count, ScalarType dtype) {
  return t == nullptr || (static_cast<int64_t>(t->numel()) == count && t->dtype() == dtype &&
                          is_default_dim_order(*t));
}

// Validates a native_layer_norm.out call and resizes its outputs: out0 like the input,
// out1 and out2 (mean, rstd) like it with the normalized dims set to 1. Writes the rows
// normalized independently and the elements per row; false after ctx.fail() otherwise.
inline bool check_layer_norm_out(KernelContext& ctx, const Tensor& input,
                                 IntArrayRef normalized_shape, const Tensor* weight,
                                 const Tensor* bias, Tensor& out0, Tensor& out1, Tensor& out2,
                                 int64_t* rows_out, int64_t* cols_out) {
  // normalized_shape is the input's trailing shape.
  const int64_t rank = input.dim();
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  TL_KERNEL_CHECK_MSG(ctx, k >= 1 && k <= rank, InvalidArgument, false,
                      "native_layer_norm.out: normalized_shape has %lld dims for a %lld-d "
                      "input", static_cast<long long>(k), static_cast<long long>(rank));
  const int64_t axis = rank - k;
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t stat_sizes[kMaxDims];
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis) {
      rows *= input.size(d);
      stat_sizes[d] = input.size(d);
    } else {
      TL_KERNEL_CHECK_MSG(ctx, input.size(d) == normalized_shape[d - axis], InvalidArgument,
                          false,
                          "native_layer_norm.out: normalized_shape does not match the "
                          "input's last %lld dims", static_cast<long long>(k));
      cols *= input.size(d);
      stat_sizes[d] = 1;
    }
  }
  const ScalarType dtype = input.dtype();
  TL_KERNEL_CHECK_MSG(ctx,
                      layer_norm_affine_ok(weight, cols, dtype) &&
                          layer_norm_affine_ok(bias, cols, dtype),
                      InvalidArgument, false,
                      "native_layer_norm.out: weight and bias must have normalized_shape and "
                      "the input's dtype");
  TL_KERNEL_CHECK(ctx,
                  same_dtype(input, out0) && same_dtype(input, out1) &&
                      same_dtype(input, out2) && is_default_dim_order(input) &&
                      is_default_dim_order(out0),
                  InvalidArgument, false);

  // Resize
  TL_KERNEL_CHECK(ctx,
                  resize_like(out0, input) == Error::Ok &&
                      resize_tensor(out1, IntArrayRef(stat_sizes, rank)) == Error::Ok &&
                      resize_tensor(out2, IntArrayRef(stat_sizes, rank)) == Error::Ok,
                  InvalidArgument, false);
  *rows_out = rows;
  *cols_out = cols;
  return true;
}

}  // namespace tailor::native
