// Division with a rounding mode (true, trunc, floor) as torch rounds it: shared by
// div's mode overloads and floor_divide (div with rounding_mode="floor").
#pragma once

#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {
namespace div_detail {

enum class Mode { True, Trunc, Floor };

// rounding_mode None, "trunc" or "floor"; false for anything else.
inline bool parse_mode(const Optional<const char*>& mode, Mode* out) {
  if (!mode.has_value()) {
    *out = Mode::True;
  } else if (string_equal(*mode, "trunc")) {
    *out = Mode::Trunc;
  } else if (string_equal(*mode, "floor")) {
    *out = Mode::Floor;
  } else {
    return false;
  }
  return true;
}

// Floor division of floating values as torch rounds it: through fmod, so the quotient
// is exact where a / b would round up to the next integer.
template <typename M>
M floor_divide(M a, M b) {
  if (b == 0) return a / b;
  const M mod = math::fmod(a, b);
  M div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return math::copysign(M(0), a / b);
  M floored = math::floor(div);
  if (div - floored > M(0.5)) floored += 1;
  return floored;
}

// a / b under `mode`. Integers only come with trunc or floor (true division writes a
// floating out); a zero integer divisor sets *by_zero, as torch raises there.
template <typename M>
M divide(M a, M b, Mode mode, bool* by_zero) {
  if constexpr (is_integral_v<M>) {
    if (b == 0) {
      *by_zero = true;
      return 0;
    }
    if constexpr (static_cast<M>(-1) < M(0)) {
      // -a, wrapping as torch does: the lowest value / -1 overflows (and traps) in C++.
      if (b == static_cast<M>(-1)) return sub_value(M(0), a);
    }
    const M q = static_cast<M>(a / b);
    const bool inexact = static_cast<M>(a % b) != 0;
    return (mode == Mode::Floor && inexact && ((a < 0) != (b < 0))) ? static_cast<M>(q - 1) : q;
  } else {
    if (mode == Mode::Trunc) return math::trunc(a / b);
    if (mode == Mode::Floor) return floor_divide(a, b);
    return a / b;
  }
}

// Runs the division over 1 or 2 inputs (a Scalar divisor is `scalar`); kMask: the
// calling kernel's selected dtypes (its TL_SELECTED_DTYPE_MASK).
template <uint32_t kMask, size_t N>
void run(KernelContext& ctx, const char* op, const Tensor* const (&in)[N],
         const Scalar& scalar, Mode mode, Tensor& out) {
  bool by_zero = false;
  TL_SWITCH_REALHBF16_TYPES_IN(kMask, out.dtype(), ctx, op, T, [&] {
    using M = acc_t<T>;
    if constexpr (N == 2) {
      apply_elementwise<M, T, kMask>(ctx, op, in, out,
                                     [&](M x, M y) { return divide(x, y, mode, &by_zero); });
    } else {
      const M b = scalar.to<M>();
      apply_elementwise<M, T, kMask>(ctx, op, in, out,
                                     [&](M x) { return divide(x, b, mode, &by_zero); });
    }
  });
  TL_KERNEL_CHECK_MSG(ctx, !by_zero, InvalidArgument, , "%s: integer division by zero", op);
}

}  // namespace div_detail

}  // namespace tailor::native
