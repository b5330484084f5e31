#include "kernels/optimized/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// out = self * other, Float only (the other dtypes go to portable).
Tensor& mul_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return float_binary_out<BinaryKind::Mul, TL_SELECTED_DTYPE_MASK("mul.out")>(
      ctx, "mul.out", self, other, 1.0f, out);
}

// mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
// out = self * other for a Float self (attention's scale); the other dtypes go to portable.
Tensor& mul_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx,
                  tailor::native::check_scalar_out("mul.Scalar_out", self, other, out) &&
                      self.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute: other in float, as torch computes a Float tensor times a number.
  const float factor = other.to<float>();
  binary_rows_parallel<BinaryKind::Mul>(
      ctx, BinaryOperand{self.const_data<float>(), BinarySpan::Full},
      BinaryOperand{&factor, BinarySpan::Single}, out.mutable_data<float>(), int64_t{1},
      static_cast<int64_t>(out.numel()), 1.0f);
  return out;
}

}  // namespace tailor::optimized::native
