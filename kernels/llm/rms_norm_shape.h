// What both kernels of llm::rms_norm.out (op_rms_norm_optimized.cpp and
// op_rms_norm_portable.cpp) check before computing, and the shape they compute on.
// tailor/llm/rms_norm_op.py defines the operator for torch.
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace llm {

// x [..., cols] as `rows` rows of `cols` floats; weight [cols].
struct RmsNormShape {
  int64_t rows = 0;
  int64_t cols = 0;
};

// Validates a call and fills `shape`, or logs why not, fails ctx and returns false.
inline bool check_rms_norm(::tailor::KernelContext& ctx, const ::tailor::Tensor& x,
                           const ::tailor::Tensor& weight, ::tailor::Tensor& out,
                           RmsNormShape& shape) {
  using ::tailor::ScalarType;
  using ::tailor::scalar_type_name;
  TL_KERNEL_CHECK_MSG(ctx, x.dim() >= 1 && weight.dim() == 1, InvalidArgument, false,
                      "llm::rms_norm: x must be [..., D] and weight [D]; got ranks %d and %d",
                      static_cast<int>(x.dim()), static_cast<int>(weight.dim()));
  TL_KERNEL_CHECK_MSG(ctx,
                      x.dtype() == ScalarType::Float && weight.dtype() == ScalarType::Float &&
                          out.dtype() == ScalarType::Float,
                      InvalidArgument, false,
                      "llm::rms_norm: x, weight and out must be Float; got %s, %s and %s",
                      scalar_type_name(x.dtype()), scalar_type_name(weight.dtype()),
                      scalar_type_name(out.dtype()));
  shape.cols = x.size(x.dim() - 1);
  TL_KERNEL_CHECK_MSG(ctx, weight.size(0) == shape.cols, InvalidArgument, false,
                      "llm::rms_norm: weight has %lld floats for rows of %lld",
                      static_cast<long long>(weight.size(0)),
                      static_cast<long long>(shape.cols));
  TL_KERNEL_CHECK_MSG(ctx, ::tailor::is_default_dim_order(x), InvalidArgument, false,
                      "llm::rms_norm: x must be contiguous");
  TL_KERNEL_CHECK_MSG(ctx, ::tailor::resize_like(out, x) == ::tailor::Error::Ok, InvalidArgument,
                      false, "llm::rms_norm: out cannot take x's shape");
  // An empty row normalizes nothing: no rows to compute.
  shape.rows = shape.cols == 0 ? 0 : static_cast<int64_t>(x.numel()) / shape.cols;
  return true;
}

}  // namespace llm
