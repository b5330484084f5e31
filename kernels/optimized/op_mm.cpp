#include "kernels/optimized/util/gemm.h"
#include "kernels/optimized/util/gemm_prepack.h"
#include "kernels/portable/util/mm_check.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// A constant mat2 is packed once at load (manifests/kernels/optimized.yaml's prepack:).
extern const KernelPrepack kMmPrepack = GemmPrepack<1>::kHook;

// mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
// out[n, p] = self[n, m] @ mat2[m, p], Float only (manifests/kernels/optimized.yaml
// sends the other dtypes to portable).
Tensor& mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  // Validate and resize
  TL_KERNEL_CHECK(ctx, self.dtype() == ScalarType::Float, InvalidArgument, out);
  if (!tailor::native::check_mm_out(ctx, self, mat2, out)) {
    return out;
  }
  const int64_t n = self.size(0);
  const int64_t m = self.size(1);
  const int64_t p = mat2.size(1);

  // Compute
  GemmArgs g = gemm_args(n, p, m, self.const_data<float>(), mat2.const_data<float>(),
                         out.mutable_data<float>());
  g.packed_b = gemm_packed_b(ctx.packed(), g.b, m, p, gemm_micro_kernels(cpu_level()).nr);
  const bool done = gemm(ctx, g);
  TL_KERNEL_CHECK_MSG(ctx, done, MemoryAllocationFailed, out, TL_SCRATCH_TOO_SMALL, "mm.out");
  return out;
}

}  // namespace tailor::optimized::native
