#include "kernels/portable/util/arg_reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
//     -> Tensor(a!)
// Index (Long) of the largest element along `dim` (util/arg_reduce.h has the rules).
Tensor& argmax_out(KernelContext& ctx, const Tensor& self, Optional<int64_t> dim, bool keepdim,
                   Tensor& out) {
  ReducePlan plan;
  if (!plan_arg_reduction(ctx, "argmax.out", self, dim, keepdim, out, &plan)) {
    return out;
  }
  TL_SWITCH_REALHBF16_TYPES(self.dtype(), ctx, "argmax.out", T, [&] {
    arg_reduce<T>(plan, self, out, [](T v, T best) { return v > best; });
  });
  return out;
}

}  // namespace tailor::native
