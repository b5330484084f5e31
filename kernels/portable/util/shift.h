// Bit shifts as torch computes them on the CPU (bitwise_left_shift, bitwise_right_shift
// and the `<<` / `>>` operators, __lshift__ / __rshift__): defined for every shift count,
// where C++ leaves counts outside [0, bit width) undefined.
#pragma once

#include "kernels/portable/util/elementwise_op.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

enum class Shift { Left, Right };

// a shifted by b bits: a count that is negative or not below the bit width shifts every
// bit out (left: 0; right: 0 for unsigned, the sign, 0 or -1, for signed values). Left
// shifts wrap (computed unsigned); right shifts of signed values are arithmetic.
template <Shift kDirection, typename M>
M shift_value(M a, M b) {
  constexpr bool kSigned = static_cast<M>(-1) < M(0);
  constexpr int kBits = static_cast<int>(sizeof(M) * 8);
  bool outside = b >= static_cast<M>(kBits);
  if constexpr (kSigned) outside = outside || b < 0;
  if constexpr (kDirection == Shift::Left) {
    return outside ? M(0) : static_cast<M>(static_cast<uint64_t>(a) << b);
  } else if constexpr (kSigned) {
    return static_cast<M>(a >> (outside ? kBits - 1 : b));
  } else {
    return outside ? M(0) : static_cast<M>(a >> b);
  }
}

// self shifted by other (a Tensor, broadcast, or a Scalar), in torch's promoted integer
// dtype (a Bool tensor with an integer Scalar shifts in Long); floating dtypes and two
// Bool tensors are rejected, as in torch.
template <Shift kDirection, uint32_t kMask, typename Other>
Tensor& shift_op(KernelContext& ctx, const char* op, const Tensor& self, const Other& other,
                 Tensor& out) {
  const auto f = [](auto a, auto b) { return shift_value<kDirection>(a, b); };
  if constexpr (is_same_v<Other, Tensor>) {
    return binary_op<DtypeSet::Int, kMask>(ctx, op, self, other, out, f);
  } else {
    return scalar_op<DtypeSet::Int, kMask>(ctx, op, self, other, out, f);
  }
}

}  // namespace tailor::native
