// What both kernels of llm::rope.out (op_rope_optimized.cpp and op_rope_portable.cpp)
// check before computing, and the shape they compute on. tailor/llm/rope_op.py defines
// the operator for torch.
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace llm {

// x [batch, tokens, heads, head_dim]; cos, sin [tokens, rotary] (rotary even, <= head_dim).
struct RopeShape {
  int64_t batch = 0;
  int64_t tokens = 0;
  int64_t heads = 0;
  int64_t head_dim = 0;
  int64_t rotary = 0;  // the dims that rotate; the other head_dim - rotary pass through
};

// Validates a call and fills `shape`, or logs why not, fails ctx and returns false.
inline bool check_rope(::tailor::KernelContext& ctx, const ::tailor::Tensor& x,
                       const ::tailor::Tensor& cos, const ::tailor::Tensor& sin,
                       ::tailor::Tensor& out, RopeShape& shape) {
  using ::tailor::ScalarType;
  using ::tailor::scalar_type_name;
  TL_KERNEL_CHECK_MSG(ctx, x.dim() == 4 && cos.dim() == 2 && sin.dim() == 2, InvalidArgument,
                      false,
                      "llm::rope: x must be [B, T, H, D], cos and sin [T, R]; got ranks %d, "
                      "%d and %d",
                      static_cast<int>(x.dim()), static_cast<int>(cos.dim()),
                      static_cast<int>(sin.dim()));
  TL_KERNEL_CHECK_MSG(ctx,
                      x.dtype() == ScalarType::Float && cos.dtype() == ScalarType::Float &&
                          sin.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float,
                      InvalidArgument, false,
                      "llm::rope: x, cos, sin and out must be Float; got %s, %s, %s and %s",
                      scalar_type_name(x.dtype()), scalar_type_name(cos.dtype()),
                      scalar_type_name(sin.dtype()), scalar_type_name(out.dtype()));
  shape.batch = x.size(0);
  shape.tokens = x.size(1);
  shape.heads = x.size(2);
  shape.head_dim = x.size(3);
  shape.rotary = cos.size(1);
  TL_KERNEL_CHECK_MSG(ctx,
                      cos.size(0) == shape.tokens && sin.size(0) == shape.tokens &&
                          sin.size(1) == shape.rotary && shape.rotary % 2 == 0 &&
                          shape.rotary <= shape.head_dim,
                      InvalidArgument, false,
                      "llm::rope: the shapes do not fit together: x [%lld, %lld, %lld, %lld], "
                      "cos [%lld, %lld], sin [%lld, %lld] (want cos and sin [T, R], R even "
                      "and at most D)",
                      static_cast<long long>(shape.batch), static_cast<long long>(shape.tokens),
                      static_cast<long long>(shape.heads),
                      static_cast<long long>(shape.head_dim),
                      static_cast<long long>(cos.size(0)), static_cast<long long>(cos.size(1)),
                      static_cast<long long>(sin.size(0)), static_cast<long long>(sin.size(1)));
  TL_KERNEL_CHECK_MSG(ctx,
                      ::tailor::is_default_dim_order(x) && ::tailor::is_default_dim_order(cos) &&
                          ::tailor::is_default_dim_order(sin),
                      InvalidArgument, false, "llm::rope: x, cos and sin must be contiguous");
  TL_KERNEL_CHECK_MSG(ctx, ::tailor::resize_like(out, x) == ::tailor::Error::Ok, InvalidArgument,
                      false, "llm::rope: out cannot take x's shape");
  return true;
}

}  // namespace llm
