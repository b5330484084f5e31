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

// Runs the division over 1 or 2 inputs (a Scalar divisor is `scalar`).
template <size_t N>
void run(KernelContext& ctx, const char* op, const Tensor* const (&in)[N],
         const Scalar& scalar, Mode mode, Tensor& out) {
  bool by_zero = false;
  constexpr uint32_t kMaskT = TL_SELECTED_DTYPE_MASK("div.out_mode");
  constexpr uint32_t kMaskS = TL_SELECTED_DTYPE_MASK("div.Scalar_mode_out");
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, N == 2 ? "div.out_mode" : "div.Scalar_mode_out",
                            T, [&] {
    using M = acc_t<T>;
    if constexpr (N == 2) {
      apply_elementwise<M, T, kMaskT>(ctx, op, in, out,
                                      [&](M x, M y) { return divide(x, y, mode, &by_zero); });
    } else {
      const M b = scalar.to<M>();
      apply_elementwise<M, T, kMaskS>(ctx, op, in, out,
                                      [&](M x) { return divide(x, b, mode, &by_zero); });
    }
  });
  TL_KERNEL_CHECK_MSG(ctx, !by_zero, InvalidArgument, , "%s: integer division by zero", op);
}

}  // namespace div_detail

// div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// True division, broadcast; integer inputs give a floating out, as in torch.
Tensor& div_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_binary_out("div.out", self, other, out), InvalidArgument, out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("div.out");
  const Tensor* in[2] = {&self, &other};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "div.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "div.out", in, out, [](M x, M y) { return x / y; });
  });
  return out;
}

// div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)
Tensor& div_out_mode(KernelContext& ctx, const Tensor& self, const Tensor& other,
                     Optional<const char*> rounding_mode, Tensor& out) {
  // Validate
  div_detail::Mode mode;
  TL_KERNEL_CHECK_MSG(ctx, div_detail::parse_mode(rounding_mode, &mode), InvalidArgument, out,
                      "div.out_mode: rounding_mode must be None, 'trunc' or 'floor'");
  TL_KERNEL_CHECK(ctx, check_binary_out("div.out_mode", self, other, out), InvalidArgument, out);
  TL_KERNEL_CHECK_MSG(ctx, mode != div_detail::Mode::True || is_floating_type(out.dtype()),
                      InvalidArgument, out, "div.out_mode: true division needs a floating out");

  // Compute
  const Tensor* in[2] = {&self, &other};
  div_detail::run(ctx, "div.out_mode", in, Scalar(), mode, out);
  return out;
}

// div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
Tensor& div_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_scalar_out("div.Scalar_out", self, other, out), InvalidArgument,
                  out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("div.Scalar_out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "div.Scalar_out", T, [&] {
    using M = acc_t<T>;
    const M b = other.to<M>();
    apply_elementwise<M, T, kMask>(ctx, "div.Scalar_out", in, out, [b](M x) { return x / b; });
  });
  return out;
}

// div.Scalar_mode_out(Tensor self, Scalar other, *, str? rounding_mode, Tensor(a!) out)
//     -> Tensor(a!)
Tensor& div_scalar_mode_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                            Optional<const char*> rounding_mode, Tensor& out) {
  // Validate
  div_detail::Mode mode;
  TL_KERNEL_CHECK_MSG(ctx, div_detail::parse_mode(rounding_mode, &mode), InvalidArgument, out,
                      "div.Scalar_mode_out: rounding_mode must be None, 'trunc' or 'floor'");
  TL_KERNEL_CHECK(ctx, check_scalar_out("div.Scalar_mode_out", self, other, out),
                  InvalidArgument, out);
  TL_KERNEL_CHECK_MSG(ctx, mode != div_detail::Mode::True || is_floating_type(out.dtype()),
                      InvalidArgument, out,
                      "div.Scalar_mode_out: true division needs a floating out");

  // Compute
  const Tensor* in[1] = {&self};
  div_detail::run(ctx, "div.Scalar_mode_out", in, other, mode, out);
  return out;
}

}  // namespace tailor::native
