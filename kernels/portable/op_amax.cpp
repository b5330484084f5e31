#include "kernels/portable/util/extreme.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
// The largest element over `dim` ([] means every dim); NaN wins, as in torch.
Tensor& amax_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                 Tensor& out) {
  return extreme_over_dims<true, TL_SELECTED_DTYPE_MASK("amax.out")>(ctx, "amax.out", self,
                                                                     dim, keepdim, out);
}

}  // namespace tailor::native
