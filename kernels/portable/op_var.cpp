#include "kernels/portable/util/variance.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//                    bool keepdim=False, Tensor(a!) out) -> Tensor(a!)
// The variance over `dim` (None or [] means every dim) with `correction` (default 1:
// Bessel's) subtracted from the count; util/variance.h has the edge rules. torch.export
// lowers every var overload (var.dim's unbiased=) to this one.
Tensor& var_correction_out(KernelContext& ctx, const Tensor& self, Optional<IntArrayRef> dim,
                           Optional<Scalar> correction, bool keepdim, Tensor& out) {
  ReducePlan plan;
  Tensor* outs[] = {&out};
  if (!plan_variance(ctx, "var.correction_out", self, dim, keepdim, outs, 1, &plan)) {
    return out;
  }
  compute_variance<TL_SELECTED_DTYPE_MASK("var.correction_out")>(
      ctx, "var.correction_out", plan, self,
      correction.has_value() ? correction.value().to<double>() : 1.0, out, nullptr);
  return out;
}

}  // namespace tailor::native
