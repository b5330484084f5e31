#include "kernels/portable/util/addmm.h"
#include "kernels/portable/util/matmul.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//           Tensor(a!) out) -> Tensor(a!)
// out[n, p] = beta * self + alpha * (mat1[n, m] @ mat2[m, p]); self (0-d, [p], [1, p],
// [n, 1] or [n, p]) broadcasts to [n, p]. With beta == 0 self is not read, so NaN and inf
// in it do not propagate (as in torch).
Tensor& addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  // Validate and resize
  AddmmSelfStrides self_strides;
  if (!check_addmm_out(ctx, self, mat1, mat2, out, &self_strides)) {
    return out;
  }

  // Compute: self broadcasts by strides, 0 along a dimension of size 1.
  const int64_t n = mat1.size(0);
  const int64_t m = mat1.size(1);
  const int64_t p = mat2.size(1);
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "addmm.out", T, [&] {
    using Acc = acc_t<T>;
    MatmulEpilogue<T> ep;
    ep.alpha = alpha.to<Acc>();
    ep.beta = beta.to<Acc>();
    if (!(ep.beta == Acc(0))) {
      ep.bias = self.const_data<T>();
      ep.bias_row_stride = self_strides.row_stride;
      ep.bias_col_stride = self_strides.col_stride;
    }
    matmul(ctx.scratch(), mat1.const_data<T>(), mat2.const_data<T>(), out.mutable_data<T>(), n, m, p, ep);
  });
  return out;
}

}  // namespace tailor::native
