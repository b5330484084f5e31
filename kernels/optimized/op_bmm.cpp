#include "kernels/optimized/util/gemm.h"
#include "kernels/portable/util/mm_check.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
// out[b, n, p] = self[b, n, m] @ mat2[b, m, p] for each batch b, Float only.
Tensor& bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  // Validate and resize
  TL_KERNEL_CHECK(ctx, self.dtype() == ScalarType::Float, InvalidArgument, out);
  if (!tailor::native::check_bmm_out(ctx, self, mat2, out)) {
    return out;
  }
  const int64_t batch = self.size(0);
  const int64_t n = self.size(1);
  const int64_t m = self.size(2);
  const int64_t p = mat2.size(2);

  // Compute: one GEMM per batch, the batch split over the threads first.
  const GemmArgs g = gemm_args(n, p, m, self.const_data<float>(), mat2.const_data<float>(),
                                out.mutable_data<float>());
  const bool done =
      gemm_batch(ctx, gemm_micro_kernels(cpu_level()), g, batch, n * m, m * p, n * p);
  TL_KERNEL_CHECK_MSG(ctx, done, MemoryAllocationFailed, out, TL_SCRATCH_TOO_SMALL, "bmm.out");
  return out;
}

}  // namespace tailor::optimized::native
