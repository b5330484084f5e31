// where.self_out's checks and its elementwise loop, shared by portable's kernel and the
// optimized one (which runs this loop for what its vector paths do not take).
#pragma once

#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

/// Resizes `out` to the broadcast shape and checks the dtypes and dim orders; false (ctx
/// failed with InvalidArgument) when they do not fit.
inline bool check_where_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                            const Tensor& other, Tensor& out) {
  const Tensor* in[3] = {&condition, &self, &other};
  TL_KERNEL_CHECK_MSG(ctx, resize_to_broadcast(out, in, 3), InvalidArgument, false,
                      "where.self_out: shapes do not broadcast to the out tensor");
  TL_KERNEL_CHECK_MSG(ctx,
                      (condition.dtype() == ScalarType::Bool ||
                       condition.dtype() == ScalarType::Byte) &&
                          can_cast(result_type(self, other), out.dtype()),
                      InvalidArgument, false,
                      "where.self_out: condition must be Bool, and out must hold the result");
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(condition) && is_default_dim_order(self) &&
                      is_default_dim_order(other) && is_default_dim_order(out),
                  InvalidArgument, false);
  return true;
}

/// out = condition ? self : other element by element, all three broadcast and loaded as
/// the compute type (a nonzero condition is true); kMask: the dtypes selected for the
/// calling kernel (its TL_SELECTED_DTYPE_MASK: this header is shared by two libraries).
template <uint32_t kMask>
void where_elementwise(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                       const Tensor& other, Tensor& out) {
  const Tensor* in[3] = {&condition, &self, &other};
  TL_SWITCH_ALL_TYPES_IN(kMask, out.dtype(), ctx, "where.self_out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "where.self_out", in, out,
                                   [](M c, M x, M y) { return c != M(0) ? x : y; });
  });
}

}  // namespace tailor::native
