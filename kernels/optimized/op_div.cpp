#include "kernels/optimized/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// out = self / other, Float only (the other dtypes and the rounding modes go to portable).
Tensor& div_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return float_binary_out<BinaryKind::Div, TL_SELECTED_DTYPE_MASK("div.out")>(
      ctx, "div.out", self, other, 1.0f, out);
}

}  // namespace tailor::optimized::native
