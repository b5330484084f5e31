#include "kernels/portable/util/modulo.h"

namespace tailor::native {

// remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// The remainder of self / other with other's sign (Python's %), broadcast and promoted;
// an integer division by zero fails the call (torch raises).
Tensor& remainder_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                             Tensor& out) {
  return modulo_op<Modulo::Remainder, TL_SELECTED_DTYPE_MASK("remainder.Tensor_out")>(
      ctx, "remainder.Tensor_out", self, other, out);
}

// remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
Tensor& remainder_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                             Tensor& out) {
  return modulo_op<Modulo::Remainder, TL_SELECTED_DTYPE_MASK("remainder.Scalar_out")>(
      ctx, "remainder.Scalar_out", self, other, out);
}

}  // namespace tailor::native
