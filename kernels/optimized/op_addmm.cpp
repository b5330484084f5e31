#include "kernels/optimized/util/gemm.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//           Tensor(a!) out) -> Tensor(a!)
// out[n, p] = beta * self + alpha * (mat1[n, m] @ mat2[m, p]), Float only; self (0-d,
// [p], [1, p], [n, 1] or [n, p]) broadcasts to [n, p]. With beta == 0 self is not read,
// so NaN and inf in it do not propagate (as in torch).
Tensor& addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, mat1.dim() == 2 && mat2.dim() == 2 && mat1.size(1) == mat2.size(0),
                      InvalidArgument, out, "addmm.out: mat1 and mat2 cannot be multiplied");
  const int64_t n = mat1.size(0);
  const int64_t m = mat1.size(1);
  const int64_t p = mat2.size(1);
  const int64_t self_rows = self.dim() == 2 ? self.size(0) : 1;
  const int64_t self_cols = self.dim() >= 1 ? self.size(self.dim() - 1) : 1;
  TL_KERNEL_CHECK_MSG(ctx,
                      self.dim() <= 2 && (self_rows == 1 || self_rows == n) &&
                          (self_cols == 1 || self_cols == p),
                      InvalidArgument, out, "addmm.out: self does not broadcast to [n, p]");
  TL_KERNEL_CHECK(ctx,
                  out.dtype() == ScalarType::Float && same_dtype(self, out) &&
                      same_dtype(mat1, out) && same_dtype(mat2, out) &&
                      is_default_dim_order(self) && is_default_dim_order(mat1) &&
                      is_default_dim_order(mat2) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  const int64_t out_sizes[2] = {n, p};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(out_sizes, 2)) == Error::Ok,
                  InvalidArgument, out);

  // Compute: self broadcasts by strides, 0 along a dimension of size 1.
  GemmArgs g = gemm_args(n, p, m, mat1.const_data<float>(), mat2.const_data<float>(),
                         out.mutable_data<float>());
  g.alpha = alpha.to<float>();
  g.beta = beta.to<float>();
  if (g.beta != 0.0f) {
    g.bias = self.const_data<float>();
    g.bias_row_stride = (self_rows == n && n > 1) ? self_cols : 0;
    g.bias_col_stride = (self_cols == p && p > 1) ? 1 : 0;
  }
  gemm(ctx, g);
  return out;
}

}  // namespace tailor::optimized::native
