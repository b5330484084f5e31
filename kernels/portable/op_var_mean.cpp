#include "kernels/portable/util/variance.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// var_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//                         bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1)
//     -> (Tensor(a!), Tensor(b!))
// The variance (out0, as var.correction_out) and the mean (out1) over `dim`.
void var_mean_correction_out(KernelContext& ctx, const Tensor& self, Optional<IntArrayRef> dim,
                             Optional<Scalar> correction, bool keepdim, Tensor& out0,
                             Tensor& out1) {
  ReducePlan plan;
  Tensor* outs[] = {&out0, &out1};
  if (!plan_variance(ctx, "var_mean.correction_out", self, dim, keepdim, outs, 2, &plan)) {
    return;
  }
  compute_variance<TL_SELECTED_DTYPE_MASK("var_mean.correction_out")>(
      ctx, "var_mean.correction_out", plan, self,
      correction.has_value() ? correction.value().to<double>() : 1.0, out0, &out1);
}

}  // namespace tailor::native
