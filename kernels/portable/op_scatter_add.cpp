#include "kernels/portable/util/scatter.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = self with src[p] added at each index position p (repeats accumulate).
Tensor& scatter_add_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out) {
  ScatterPlan plan;
  if (plan_scatter(ctx, "scatter_add.out", self, dim, index, &src, out, &plan)) {
    scatter_values<TL_SELECTED_DTYPE_MASK("scatter_add.out")>(
        ctx, "scatter_add.out", plan, index, &src, nullptr, ScatterReduce::Add, out);
  }
  return out;
}

}  // namespace tailor::native
