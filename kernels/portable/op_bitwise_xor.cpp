#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// bitwise_xor.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// Bitwise exclusive or, broadcast, in the promoted integer or Bool dtype; floating dtypes are
// rejected, as in torch.
Tensor& bitwise_xor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                              Tensor& out) {
  return binary_op<DtypeSet::IntB, TL_SELECTED_DTYPE_MASK("bitwise_xor.Tensor_out")>(
      ctx, "bitwise_xor.Tensor_out", self, other, out, [](auto x, auto y) { return x ^ y; });
}

// bitwise_xor.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
// A Bool tensor with an integer Scalar computes in Long, as in torch.
Tensor& bitwise_xor_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                              Tensor& out) {
  return scalar_op<DtypeSet::IntB, TL_SELECTED_DTYPE_MASK("bitwise_xor.Scalar_out")>(
      ctx, "bitwise_xor.Scalar_out", self, other, out, [](auto x, auto y) { return x ^ y; });
}

}  // namespace tailor::native
