#include "kernels/optimized/util/gemm.h"
#include "kernels/optimized/util/gemm_prepack.h"
#include "kernels/portable/util/addmm.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// A constant mat2 (a linear layer's weight) is packed once at load (manifests/kernels/
// optimized.yaml's prepack:).
extern const KernelPrepack kAddmmPrepack = GemmPrepack<2>::kHook;

// addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//           Tensor(a!) out) -> Tensor(a!)
// out[n, p] = beta * self + alpha * (mat1[n, m] @ mat2[m, p]), Float only; self (0-d,
// [p], [1, p], [n, 1] or [n, p]) broadcasts to [n, p]. With beta == 0 self is not read,
// so NaN and inf in it do not propagate (as in torch).
Tensor& addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  // Validate and resize
  tailor::native::AddmmSelfStrides self_strides;
  if (!tailor::native::check_addmm_out(ctx, self, mat1, mat2, out, &self_strides)) {
    return out;
  }
  TL_KERNEL_CHECK(ctx, out.dtype() == ScalarType::Float, InvalidArgument, out);

  // Compute: self broadcasts by strides, 0 along a dimension of size 1.
  const int64_t n = mat1.size(0);
  const int64_t m = mat1.size(1);
  const int64_t p = mat2.size(1);
  GemmArgs g = gemm_args(n, p, m, mat1.const_data<float>(), mat2.const_data<float>(),
                         out.mutable_data<float>());
  g.packed_b = gemm_packed_b(ctx.packed(), g.b, m, p, gemm_micro_kernels(cpu_level()).nr);
  g.alpha = alpha.to<float>();
  g.beta = beta.to<float>();
  if (g.beta != 0.0f) {
    g.bias = self.const_data<float>();
    g.bias_row_stride = self_strides.row_stride;
    g.bias_col_stride = self_strides.col_stride;
  }
  TL_KERNEL_CHECK_MSG(ctx, gemm(ctx, g), MemoryAllocationFailed, out, TL_SCRATCH_TOO_SMALL,
                      "addmm.out");
  return out;
}

}  // namespace tailor::optimized::native
