#include "kernels/portable/util/matmul.h"
#include "kernels/portable/util/mm_check.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
// out[b, n, p] = self[b, n, m] @ mat2[b, m, p] for each batch b (no broadcasting).
Tensor& bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  // Validate and resize
  if (!check_bmm_out(ctx, self, mat2, out)) {
    return out;
  }
  const int64_t batch = self.size(0);
  const int64_t n = self.size(1);
  const int64_t m = self.size(2);
  const int64_t p = mat2.size(2);

  // Compute
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "bmm.out", T, [&] {
    const T* a = self.const_data<T>();
    const T* b = mat2.const_data<T>();
    T* dst = out.mutable_data<T>();
    for (int64_t i = 0; i < batch; ++i) {
      matmul(ctx.scratch(), a + i * n * m, b + i * m * p, dst + i * n * p, n, m, p);
    }
  });
  return out;
}

}  // namespace tailor::native
