#include "kernels/optimized/util/gemm.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
// out[n, p] = self[n, m] @ mat2[m, p], Float only (manifests/kernels/optimized.yaml
// sends the other dtypes to portable).
Tensor& mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, self.dim() == 2 && mat2.dim() == 2 && self.size(1) == mat2.size(0),
                      InvalidArgument, out, "mm.out: self and mat2 cannot be multiplied");
  TL_KERNEL_CHECK(ctx,
                  self.dtype() == ScalarType::Float && same_dtype(self, out) &&
                      same_dtype(mat2, out) && is_default_dim_order(self) &&
                      is_default_dim_order(mat2) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  const int64_t n = self.size(0);
  const int64_t m = self.size(1);
  const int64_t p = mat2.size(1);
  const int64_t out_sizes[2] = {n, p};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(out_sizes, 2)) == Error::Ok,
                  InvalidArgument, out);

  // Compute
  gemm(ctx, gemm_args(n, p, m, self.const_data<float>(), mat2.const_data<float>(),
                      out.mutable_data<float>()));
  return out;
}

}  // namespace tailor::optimized::native
