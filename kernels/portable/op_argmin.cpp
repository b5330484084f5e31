#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
//     -> Tensor(a!)
// Index (Long) of the smallest element along `dim`, or in the flattened tensor when dim is
// None. The first occurrence wins ties, and the first NaN beats everything (as in torch).
Tensor& argmin_out(KernelContext& ctx, const Tensor& self, Optional<int64_t> dim, bool keepdim,
                   Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, out.dtype() == ScalarType::Long, InvalidArgument, out,
                      "argmin.out: out must be Long, got %s", scalar_type_name(out.dtype()));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self) && is_default_dim_order(out),
                  InvalidArgument, out);
  ReducePlan plan;
  const int64_t d = dim.value_or(0);
  TL_KERNEL_CHECK_MSG(ctx, plan.init(self, &d, 1, !dim.has_value(), keepdim), InvalidArgument,
                      out, "argmin.out: dim %lld out of range", static_cast<long long>(d));
  TL_KERNEL_CHECK_MSG(ctx, plan.reduce_numel() > 0, InvalidArgument, out,
                      "argmin.out: cannot take the argmin of an empty tensor or dim");

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, plan.out_sizes()) == Error::Ok, InvalidArgument,
                  out);

  // Compute
  TL_SWITCH_REALHBF16_TYPES(self.dtype(), ctx, "argmin.out", T, [&] {
    const T* src = self.const_data<T>();
    int64_t* dst = out.mutable_data<int64_t>();
    for (int64_t o = 0; o < plan.out_numel(); ++o) {
      const int64_t base = plan.base_offset(o);
      T best = src[base];
      int64_t best_at = 0;
      plan.visit(base, [&](int64_t offset, int64_t position) {
        const T v = src[offset];
        if (!is_nan_value(best) && (is_nan_value(v) || v < best)) {
          best = v;
          best_at = position;
        }
      });
      dst[o] = best_at;
    }
  });
  return out;
}

}  // namespace tailor::native
