// Shared validation of unary elementwise ops.
#pragma once

#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/promote.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Whether a result of dtype `result` may be written to `out` (torch's can_cast), logged.
inline bool check_castable(const char* op, ScalarType result, const Tensor& out) {
  if (!can_cast(result, out.dtype())) {
    TL_LOG(Error, "%s: the result (%s) cannot be written to an out tensor of dtype %s", op,
           scalar_type_name(result), scalar_type_name(out.dtype()));
    return false;
  }
  return true;
}

// Resizes `out` like `self`; false (after logging why, naming `op`) when it cannot, a
// tensor is not contiguous, or `out` cannot hold the result dtype `result`.
inline bool check_unary_out(const char* op, const Tensor& self, ScalarType result,
                            Tensor& out) {
  if (resize_like(out, self) != Error::Ok ||
      !(is_default_dim_order(self) && is_default_dim_order(out))) {
    TL_LOG(Error, "%s: out cannot take the shape of self, or a tensor is not contiguous", op);
    return false;
  }
  return check_castable(op, result, out);
}

// The result dtype of a floating op (exp, sqrt, ...): integers and Bool give Float.
constexpr ScalarType float_result_type(ScalarType t) {
  return is_floating_type(t) ? t : ScalarType::Float;
}

}  // namespace tailor::native
