#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
// The largest element over `dim` ([] means every dim); NaN wins, as in torch.
Tensor& amax_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                 Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && is_default_dim_order(self) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);
  ReducePlan plan;
  TL_KERNEL_CHECK_MSG(ctx, plan.init(self, dim.data(), dim.size(), dim.empty(), keepdim),
                      InvalidArgument, out, "amax.out: dim out of range or repeated");
  TL_KERNEL_CHECK_MSG(ctx, plan.reduce_numel() > 0 || plan.out_numel() == 0, InvalidArgument,
                      out, "amax.out: cannot take the maximum of an empty dim");

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, plan.out_sizes()) == Error::Ok, InvalidArgument,
                  out);

  // Compute
  TL_SWITCH_ALL_TYPES(self.dtype(), ctx, "amax.out", T, [&] {
    const T* src = self.const_data<T>();
    T* dst = out.mutable_data<T>();
    for (int64_t o = 0; o < plan.out_numel(); ++o) {
      const int64_t base = plan.base_offset(o);
      auto best = element_value(src[base]);  // T, or bool for a Bool element
      plan.visit(base, [&](int64_t offset, int64_t) {
        const auto v = element_value(src[offset]);
        if (!is_nan_value(best) && (is_nan_value(v) || v > best)) {
          best = v;
        }
      });
      dst[o] = static_cast<T>(best);
    }
  });
  return out;
}

}  // namespace tailor::native
