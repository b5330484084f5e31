// The remainders of a division as torch computes them (fmod, remainder): floating ones
// through fmod, integer ones exactly. An integer division by zero sets a flag the kernel
// turns into its error, as torch raises ZeroDivisionError there; x % -1 is 0 (in C++ the
// most negative integer % -1 overflows).
#pragma once

#include "kernels/portable/util/elementwise_op.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// The remainder of a / b with the sign of a (C's fmod and %).
template <typename M>
M fmod_value(M a, M b, bool* by_zero) {
  if constexpr (is_integral_v<M>) {
    if (b == 0) {
      *by_zero = true;
      return 0;
    }
    if constexpr (static_cast<M>(-1) < M(0)) {  // signed: the lowest value % -1 overflows
      if (b == static_cast<M>(-1)) return M(0);
    }
    return static_cast<M>(a % b);
  } else {
    return math::fmod(a, b);
  }
}

// The remainder of a / b with the sign of b (Python's %): fmod, moved by b when the
// signs differ; a floating fmod of 0 keeps its sign.
template <typename M>
M remainder_value(M a, M b, bool* by_zero) {
  const M mod = fmod_value(a, b, by_zero);
  return (mod != 0 && ((b < 0) != (mod < 0))) ? static_cast<M>(mod + b) : mod;
}

// Which remainder: fmod_value's or remainder_value's.
enum class Modulo { Fmod, Remainder };

// The remainder of self / other (a Tensor, broadcast, or a Scalar) by kRule, in torch's
// promoted dtype; a zero integer divisor fails the call. torch has no Bool fmod or
// remainder of two Bool tensors (a Bool tensor with an integer Scalar computes in Long).
template <Modulo kRule, uint32_t kMask, typename Other>
Tensor& modulo_op(KernelContext& ctx, const char* op, const Tensor& self, const Other& other,
                  Tensor& out) {
  bool by_zero = false;
  const auto f = [&by_zero](auto a, auto b) {
    if constexpr (kRule == Modulo::Fmod) {
      return fmod_value(a, b, &by_zero);
    } else {
      return remainder_value(a, b, &by_zero);
    }
  };
  if constexpr (is_same_v<Other, Tensor>) {
    binary_op<DtypeSet::RealHBF16, kMask>(ctx, op, self, other, out, f);
  } else {
    scalar_op<DtypeSet::RealHBF16, kMask>(ctx, op, self, other, out, f);
  }
  TL_KERNEL_CHECK_MSG(ctx, !by_zero, InvalidArgument, out,
                      "%s: integer division by zero (torch raises ZeroDivisionError)", op);
  return out;
}

}  // namespace tailor::native
