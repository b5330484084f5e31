#include "kernels/portable/util/shift.h"

namespace tailor::native {

// bitwise_left_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// self shifted left by other bits (wrapping), broadcast; counts outside [0, bits) give
// 0 (util/shift.h).
Tensor& bitwise_left_shift_tensor_out(KernelContext& ctx, const Tensor& self,
                                      const Tensor& other, Tensor& out) {
  return shift_op<Shift::Left, TL_SELECTED_DTYPE_MASK("bitwise_left_shift.Tensor_out")>(
      ctx, "bitwise_left_shift.Tensor_out", self, other, out);
}

// bitwise_left_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//     -> Tensor(a!)
Tensor& bitwise_left_shift_tensor_scalar_out(KernelContext& ctx, const Tensor& self,
                                             const Scalar& other, Tensor& out) {
  return shift_op<Shift::Left, TL_SELECTED_DTYPE_MASK("bitwise_left_shift.Tensor_Scalar_out")>(
      ctx, "bitwise_left_shift.Tensor_Scalar_out", self, other, out);
}

// __lshift__.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// The `<<` operator torch.export keeps as is: the same shift.
Tensor& lshift_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out) {
  return shift_op<Shift::Left, TL_SELECTED_DTYPE_MASK("__lshift__.Tensor_out")>(
      ctx, "__lshift__.Tensor_out", self, other, out);
}

// __lshift__.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
Tensor& lshift_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                          Tensor& out) {
  return shift_op<Shift::Left, TL_SELECTED_DTYPE_MASK("__lshift__.Scalar_out")>(
      ctx, "__lshift__.Scalar_out", self, other, out);
}

}  // namespace tailor::native
