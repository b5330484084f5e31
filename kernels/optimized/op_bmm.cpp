#include "kernels/optimized/util/gemm.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
// out[b, n, p] = self[b, n, m] @ mat2[b, m, p] for each batch b, Float only.
Tensor& bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx,
                      self.dim() == 3 && mat2.dim() == 3 && self.size(0) == mat2.size(0) &&
                          self.size(2) == mat2.size(1),
                      InvalidArgument, out,
                      "bmm.out: expected self [b, n, m] and mat2 [b, m, p]");
  TL_KERNEL_CHECK(ctx,
                  self.dtype() == ScalarType::Float && same_dtype(self, out) &&
                      same_dtype(mat2, out) && is_default_dim_order(self) &&
                      is_default_dim_order(mat2) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  const int64_t batch = self.size(0);
  const int64_t n = self.size(1);
  const int64_t m = self.size(2);
  const int64_t p = mat2.size(2);
  const int64_t out_sizes[3] = {batch, n, p};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(out_sizes, 3)) == Error::Ok,
                  InvalidArgument, out);

  // Compute: one GEMM per batch, the batch split over the threads first.
  const GemmArgs g = gemm_args(n, p, m, self.const_data<float>(), mat2.const_data<float>(),
                                out.mutable_data<float>());
  gemm_batch(ctx, gemm_micro_kernels(cpu_level()), g, batch, n * m, m * p, n * p);
  return out;
}

}  // namespace tailor::optimized::native
