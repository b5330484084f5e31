#include "kernels/portable/util/modulo.h"

namespace tailor::native {

// fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// The remainder of self / other with self's sign (C's fmod), broadcast and promoted; an
// integer division by zero fails the call (torch raises).
Tensor& fmod_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return modulo_op<Modulo::Fmod, TL_SELECTED_DTYPE_MASK("fmod.Tensor_out")>(
      ctx, "fmod.Tensor_out", self, other, out);
}

// fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
Tensor& fmod_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                        Tensor& out) {
  return modulo_op<Modulo::Fmod, TL_SELECTED_DTYPE_MASK("fmod.Scalar_out")>(
      ctx, "fmod.Scalar_out", self, other, out);
}

}  // namespace tailor::native
