// masked_fill's checks and its elementwise loop, shared by portable's kernels and the
// optimized ones (which run this loop for what their vector path does not take).
#pragma once

#include "kernels/portable/util/elementwise.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

/// Resizes `out` to the broadcast of self and mask (torch's out-of-place masked_fill
/// broadcasts both) and checks the dtypes, the value's rank and the dim orders; false
/// (ctx failed with InvalidArgument) when they do not fit. `value` is null for a Scalar.
inline bool check_masked_fill_out(KernelContext& ctx, const char* op, const Tensor& self,
                                  const Tensor& mask, const Tensor* value, Tensor& out) {
  const Tensor* in[2] = {&self, &mask};
  TL_KERNEL_CHECK_MSG(ctx, resize_to_broadcast(out, in, 2), InvalidArgument, false,
                      "%s: self and mask do not broadcast to the out tensor", op);
  TL_KERNEL_CHECK_MSG(ctx, mask.dtype() == ScalarType::Bool, InvalidArgument, false,
                      "%s: mask must be Bool, got %s", op, scalar_type_name(mask.dtype()));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out), InvalidArgument, false,
                      "%s: out must have self's dtype %s", op, scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK_MSG(ctx, value == nullptr || value->dim() == 0, InvalidArgument, false,
                      "%s: value must be a 0-dim tensor, got %lld dims", op,
                      static_cast<long long>(value == nullptr ? 0 : value->dim()));
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(mask) &&
                      is_default_dim_order(out) &&
                      (value == nullptr || is_default_dim_order(*value)),
                  InvalidArgument, false);
  return true;
}

/// out = mask ? value : self element by element, in one pass: the value is `scalar`, or
/// the 0-dim `value` tensor when it is not null (converted to self's dtype as torch does:
/// integers truncate, nonzero is true); kMask: the calling kernel's selected dtypes.
template <uint32_t kMask>
void masked_fill_elementwise(KernelContext& ctx, const char* op, const Tensor& self,
                             const Tensor& mask, const Scalar& scalar, const Tensor* value,
                             Tensor& out) {
  TL_SWITCH_ALL_TYPES_IN(kMask, out.dtype(), ctx, op, T, [&] {
    using M = acc_t<T>;
    if (value != nullptr) {
      const Tensor* in[3] = {&self, &mask, value};
      apply_elementwise<M, T, kMask>(ctx, op, in, out,
                                     [](M x, M m, M v) { return m != M(0) ? v : x; });
    } else {
      const M v = scalar.to<M>();
      const Tensor* in[2] = {&self, &mask};
      apply_elementwise<M, T, kMask>(ctx, op, in, out,
                                     [v](M x, M m) { return m != M(0) ? v : x; });
    }
  });
}

}  // namespace tailor::native
