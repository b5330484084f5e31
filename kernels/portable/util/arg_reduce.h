// argmax and argmin: the index (Long) of the best element along one dim, or in the
// flattened tensor when dim is None. The first occurrence wins ties and the first NaN
// beats everything, as in torch.
#pragma once

#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Checks the arguments of `op` and resizes `out`; false (with ctx failed) on bad input.
inline bool plan_arg_reduction(KernelContext& ctx, const char* op, const Tensor& self,
                               Optional<int64_t> dim, bool keepdim, Tensor& out,
                               ReducePlan* plan) {
  TL_KERNEL_CHECK_MSG(ctx, out.dtype() == ScalarType::Long, InvalidArgument, false,
                      "%s: out must be Long, got %s", op, scalar_type_name(out.dtype()));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self) && is_default_dim_order(out),
                  InvalidArgument, false);
  const int64_t d = dim.value_or(0);
  TL_KERNEL_CHECK_MSG(ctx, plan->init(self, &d, 1, !dim.has_value(), keepdim), InvalidArgument,
                      false, "%s: dim %lld out of range", op, static_cast<long long>(d));
  TL_KERNEL_CHECK_MSG(ctx, plan->reduce_numel() > 0, InvalidArgument, false,
                      "%s: cannot reduce an empty tensor or dim", op);
  TL_KERNEL_CHECK(ctx, resize_tensor(out, plan->out_sizes()) == Error::Ok, InvalidArgument,
                  false);
  return true;
}

// Writes, per output element, the position of the element `better(v, best)` picks.
template <typename T, typename Better>
void arg_reduce(const ReducePlan& plan, const Tensor& self, Tensor& out, Better better) {
  const T* src = self.const_data<T>();
  int64_t* dst = out.mutable_data<int64_t>();
  for (int64_t o = 0; o < plan.out_numel(); ++o) {
    const int64_t base = plan.base_offset(o);
    T best = src[base];
    int64_t best_at = 0;
    plan.visit(base, [&](int64_t offset, int64_t position) {
      const T v = src[offset];
      if (!is_nan_value(best) && (is_nan_value(v) || better(v, best))) {
        best = v;
        best_at = position;
      }
    });
    dst[o] = best_at;
  }
}

}  // namespace tailor::native
