#include "kernels/portable/util/extreme.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
// The smallest element over `dim` ([] means every dim); NaN wins, as in torch.
Tensor& amin_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                 Tensor& out) {
  return extreme_over_dims<false, TL_SELECTED_DTYPE_MASK("amin.out")>(ctx, "amin.out", self,
                                                                      dim, keepdim, out);
}

}  // namespace tailor::native
