#include "kernels/portable/util/shift.h"

namespace tailor::native {

// bitwise_right_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// self shifted right by other bits (arithmetically for signed dtypes), broadcast; counts
// outside [0, bits) shift every bit out (util/shift.h).
Tensor& bitwise_right_shift_tensor_out(KernelContext& ctx, const Tensor& self,
                                       const Tensor& other, Tensor& out) {
  return shift_op<Shift::Right, TL_SELECTED_DTYPE_MASK("bitwise_right_shift.Tensor_out")>(
      ctx, "bitwise_right_shift.Tensor_out", self, other, out);
}

// bitwise_right_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//     -> Tensor(a!)
Tensor& bitwise_right_shift_tensor_scalar_out(KernelContext& ctx, const Tensor& self,
                                              const Scalar& other, Tensor& out) {
  return shift_op<Shift::Right, TL_SELECTED_DTYPE_MASK("bitwise_right_shift.Tensor_Scalar_out")>(
      ctx, "bitwise_right_shift.Tensor_Scalar_out", self, other, out);
}

// __rshift__.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// The `>>` operator torch.export keeps as is: the same shift.
Tensor& rshift_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out) {
  return shift_op<Shift::Right, TL_SELECTED_DTYPE_MASK("__rshift__.Tensor_out")>(
      ctx, "__rshift__.Tensor_out", self, other, out);
}

// __rshift__.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
Tensor& rshift_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                          Tensor& out) {
  return shift_op<Shift::Right, TL_SELECTED_DTYPE_MASK("__rshift__.Scalar_out")>(
      ctx, "__rshift__.Scalar_out", self, other, out);
}

}  // namespace tailor::native
