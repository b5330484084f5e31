// Shared validation of binary elementwise ops (tensor-tensor and tensor-Scalar).
#pragma once

#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/promote.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Resizes `out` to the broadcast of a and b; false (after logging why, naming `op`)
// when they do not broadcast, a tensor is not contiguous, or torch's result dtype of
// a and b cannot be written to out's dtype.
inline bool check_binary_out(const char* op, const Tensor& a, const Tensor& b, Tensor& out) {
  const Tensor* in[2] = {&a, &b};
  if (!resize_to_broadcast(out, in, 2)) {
    TL_LOG(Error, "%s: shapes do not broadcast to the out tensor", op);
    return false;
  }
  if (!(is_default_dim_order(a) && is_default_dim_order(b) && is_default_dim_order(out))) {
    TL_LOG(Error, "%s: tensors must be contiguous", op);
    return false;
  }
  return check_castable(op, result_type(a, b), out);
}

// The same for a tensor and a Scalar: out takes a's shape.
inline bool check_scalar_out(const char* op, const Tensor& a, const Scalar& b, Tensor& out) {
  return check_unary_out(op, a, result_type(a, b), out);
}

}  // namespace tailor::native
