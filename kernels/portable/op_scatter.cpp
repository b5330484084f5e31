#include "kernels/portable/util/scatter.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = self with src[p] written at each index position p (util/scatter.h has the walk).
Tensor& scatter_src_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out) {
  ScatterPlan plan;
  if (plan_scatter(ctx, "scatter.src_out", self, dim, index, &src, out, &plan)) {
    scatter_values<TL_SELECTED_DTYPE_MASK("scatter.src_out")>(
        ctx, "scatter.src_out", plan, index, &src, nullptr, ScatterReduce::None, out);
  }
  return out;
}

// scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = self with `value` written at each index position.
Tensor& scatter_value_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Scalar& value, Tensor& out) {
  ScatterPlan plan;
  if (plan_scatter(ctx, "scatter.value_out", self, dim, index, nullptr, out, &plan)) {
    scatter_values<TL_SELECTED_DTYPE_MASK("scatter.value_out")>(
        ctx, "scatter.value_out", plan, index, nullptr, &value, ScatterReduce::None, out);
  }
  return out;
}

// scatter.reduce_out(Tensor self, int dim, Tensor index, Tensor src, *, str reduce,
//                    Tensor(a!) out) -> Tensor(a!)
// As scatter.src_out, adding ("add") or multiplying ("multiply") src into out.
Tensor& scatter_reduce_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                           const Tensor& index, const Tensor& src, const char* reduce,
                           Tensor& out) {
  ScatterReduce how = ScatterReduce::None;
  TL_KERNEL_CHECK_MSG(ctx, parse_scatter_reduce(reduce, &how), InvalidArgument, out,
                      "scatter.reduce_out: reduce must be \"add\" or \"multiply\", got \"%s\"",
                      reduce);
  ScatterPlan plan;
  if (plan_scatter(ctx, "scatter.reduce_out", self, dim, index, &src, out, &plan)) {
    scatter_values<TL_SELECTED_DTYPE_MASK("scatter.reduce_out")>(
        ctx, "scatter.reduce_out", plan, index, &src, nullptr, how, out);
  }
  return out;
}

// scatter.value_reduce_out(Tensor self, int dim, Tensor index, Scalar value, *,
//                          str reduce, Tensor(a!) out) -> Tensor(a!)
// As scatter.value_out, adding or multiplying `value` into out.
Tensor& scatter_value_reduce_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                                 const Tensor& index, const Scalar& value, const char* reduce,
                                 Tensor& out) {
  ScatterReduce how = ScatterReduce::None;
  TL_KERNEL_CHECK_MSG(
      ctx, parse_scatter_reduce(reduce, &how), InvalidArgument, out,
      "scatter.value_reduce_out: reduce must be \"add\" or \"multiply\", got \"%s\"", reduce);
  ScatterPlan plan;
  if (plan_scatter(ctx, "scatter.value_reduce_out", self, dim, index, nullptr, out, &plan)) {
    scatter_values<TL_SELECTED_DTYPE_MASK("scatter.value_reduce_out")>(
        ctx, "scatter.value_reduce_out", plan, index, nullptr, &value, how, out);
  }
  return out;
}

}  // namespace tailor::native
