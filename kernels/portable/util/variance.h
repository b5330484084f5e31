// var and var_mean: per output element the mean and the sum of squared deviations of the
// reduced elements (two passes in double, so Float results match torch's to rounding),
// and the variance as that sum / max(N - correction, 0): N <= correction gives inf, or
// NaN when the sum is 0 (one element, an empty reduction), as torch gives.
#pragma once

#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Checks self and the outs (floating, self's dtype, contiguous) and plans the reduction
// over `dim` (None or [] reduces everything); resizes each out. False with ctx failed.
inline bool plan_variance(KernelContext& ctx, const char* op, const Tensor& self,
                          Optional<IntArrayRef> dim, bool keepdim, Tensor* const* outs,
                          size_t n_outs, ReducePlan* plan) {
  TL_KERNEL_CHECK_MSG(ctx, is_floating_type(self.dtype()), InvalidArgument, false,
                      "%s: self must be a floating dtype, got %s", op,
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self), InvalidArgument, false);
  const IntArrayRef dims = dim.value_or(IntArrayRef());
  TL_KERNEL_CHECK_MSG(ctx, plan->init(self, dims.data(), dims.size(), dims.empty(), keepdim),
                      InvalidArgument, false, "%s: dim out of range or repeated", op);
  for (size_t i = 0; i < n_outs; ++i) {
    Tensor& out = *outs[i];
    TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out) && is_default_dim_order(out),
                        InvalidArgument, false, "%s: out must be contiguous %s, got %s", op,
                        scalar_type_name(self.dtype()), scalar_type_name(out.dtype()));
    TL_KERNEL_CHECK(ctx, resize_tensor(out, plan->out_sizes()) == Error::Ok, InvalidArgument,
                    false);
  }
  return true;
}

// Writes the variance to `var` and, when given, the mean to `mean`. kMask: the caller's
// TL_SELECTED_DTYPE_MASK.
template <uint32_t kMask>
void compute_variance(KernelContext& ctx, const char* op, const ReducePlan& plan,
                      const Tensor& self, double correction, Tensor& var, Tensor* mean) {
  TL_SWITCH_FLOAT_TYPES_IN(kMask, self.dtype(), ctx, op, T, [&] {
    const T* src = self.const_data<T>();
    T* var_dst = var.mutable_data<T>();
    T* mean_dst = mean != nullptr ? mean->mutable_data<T>() : nullptr;
    const double n = static_cast<double>(plan.reduce_numel());
    double divisor = n - correction;
    divisor = divisor > 0 ? divisor : 0.0;
    for (int64_t o = 0; o < plan.out_numel(); ++o) {
      const int64_t base = plan.base_offset(o);
      double sum = 0;
      plan.visit(base, [&](int64_t offset, int64_t) { sum += static_cast<double>(src[offset]); });
      const double m = sum / n;  // NaN for an empty reduction, as torch's mean
      double squares = 0;
      plan.visit(base, [&](int64_t offset, int64_t) {
        const double d = static_cast<double>(src[offset]) - m;
        squares += d * d;
      });
      var_dst[o] = static_cast<T>(plan.reduce_numel() > 0 ? squares / divisor : m);
      if (mean_dst != nullptr) {
        mean_dst[o] = static_cast<T>(m);
      }
    }
  });
}

}  // namespace tailor::native
