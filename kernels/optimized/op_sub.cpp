#include "kernels/optimized/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
// out = self - alpha * other, Float only (the other dtypes go to portable).
Tensor& sub_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  return float_binary_out<BinaryKind::Sub, TL_SELECTED_DTYPE_MASK("sub.out")>(
      ctx, "sub.out", self, other, alpha.to<float>(), out);
}

}  // namespace tailor::optimized::native
