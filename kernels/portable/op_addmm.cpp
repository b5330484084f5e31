#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//           Tensor(a!) out) -> Tensor(a!)
// out[n, p] = beta * self + alpha * (mat1[n, m] @ mat2[m, p]); self broadcasts to [n, p].
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
                  same_dtype(self, out) && same_dtype(mat1, out) && same_dtype(mat2, out) &&
                      is_default_dim_order(self) && is_default_dim_order(mat1) &&
                      is_default_dim_order(mat2),
                  InvalidArgument, out);

  // Resize
  const int64_t out_sizes[2] = {n, p};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(out_sizes, 2)) == Error::Ok,
                  InvalidArgument, out);

  // Compute: broadcasting by strides, 0 along a dimension of size 1.
  const int64_t row_stride = (self_rows == n && n > 1) ? self_cols : 0;
  const int64_t col_stride = (self_cols == p && p > 1) ? 1 : 0;
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "addmm.out", T, [&] {
    using Acc = acc_t<T>;
    const T* a = mat1.const_data<T>();
    const T* b = mat2.const_data<T>();
    const T* bias = self.const_data<T>();
    T* dst = out.mutable_data<T>();
    const Acc beta_v = beta.to<Acc>();
    const Acc alpha_v = alpha.to<Acc>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < p; ++j) {
        Acc sum = 0;
        for (int64_t k = 0; k < m; ++k) {
          sum += static_cast<Acc>(a[i * m + k]) * static_cast<Acc>(b[k * p + j]);
        }
        const Acc bias_v = static_cast<Acc>(bias[i * row_stride + j * col_stride]);
        dst[i * p + j] = static_cast<T>(beta_v * bias_v + alpha_v * sum);
      }
    }
  });
  return out;
}

}  // namespace tailor::native
