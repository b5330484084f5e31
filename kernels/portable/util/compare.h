// Shared code of the comparison ops (eq, ne, lt, le, gt, ge): Bool out, computed in
// torch's result dtype of the two arguments.
#pragma once

#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Validation of a Tensor overload: broadcast, contiguous, Bool out.
inline bool check_compare_out(const char* op, const Tensor& a, const Tensor& b, Tensor& out) {
  const Tensor* in[2] = {&a, &b};
  if (!resize_to_broadcast(out, in, 2) || out.dtype() != ScalarType::Bool ||
      !(is_default_dim_order(a) && is_default_dim_order(b) && is_default_dim_order(out))) {
    TL_LOG(Error, "%s: shapes do not broadcast, out is not Bool, or a tensor is not "
           "contiguous", op);
    return false;
  }
  return true;
}

// Validation of a Scalar overload: out like self, Bool.
inline bool check_compare_scalar_out(const char* op, const Tensor& a, Tensor& out) {
  if (resize_like(out, a) != Error::Ok || out.dtype() != ScalarType::Bool ||
      !(is_default_dim_order(a) && is_default_dim_order(out))) {
    TL_LOG(Error, "%s: out cannot take self's shape, is not Bool, or a tensor is not "
           "contiguous", op);
    return false;
  }
  return true;
}

}  // namespace tailor::native

// The body of a comparison kernel: switches over the compute dtype `compute` (the
// result dtype of the arguments) and writes cmp(x, y) to the Bool `out`. `in` holds
// the tensor arguments; with one, `scalar` is the right-hand side.
#define TL_PORTABLE_COMPARE(ctx, op_name, compute, in, scalar, out, cmp)                  \
  do {                                                                                  \
    constexpr uint32_t tl_cmp_mask_ = TL_SELECTED_DTYPE_MASK(op_name);                  \
    TL_SWITCH_ALL_TYPES(compute, ctx, op_name, T, [&] {                                 \
      using M = ::tailor::native::acc_t<T>;                                             \
      if constexpr (sizeof(in) / sizeof(in[0]) == 2) {                                  \
        ::tailor::native::apply_elementwise<M, ::tailor::Bool, tl_cmp_mask_>(           \
            ctx, op_name, in, out, [](M x, M y) { return cmp; });                       \
      } else {                                                                          \
        const M y = (scalar).template to<M>();                                          \
        ::tailor::native::apply_elementwise<M, ::tailor::Bool, tl_cmp_mask_>(           \
            ctx, op_name, in, out, [y](M x) { return cmp; });                           \
      }                                                                                 \
    });                                                                                 \
  } while (0)
