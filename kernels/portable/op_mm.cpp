#include "kernels/portable/util/matmul.h"
#include "kernels/portable/util/mm_check.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
// out[n, p] = self[n, m] @ mat2[m, p].
Tensor& mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  // Validate and resize
  if (!check_mm_out(ctx, self, mat2, out)) {
    return out;
  }
  const int64_t n = self.size(0);
  const int64_t m = self.size(1);
  const int64_t p = mat2.size(1);

  // Compute
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "mm.out", T, [&] {
    matmul(ctx.scratch(), self.const_data<T>(), mat2.const_data<T>(), out.mutable_data<T>(), n, m, p);
  });
  return out;
}

}  // namespace tailor::native
