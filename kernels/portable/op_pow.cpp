#include "kernels/portable/util/binary.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {
namespace pow_detail {

// base^exp for a non-negative integer exponent, by squaring (wrapping like torch).
template <typename M>
M int_pow(M base, int64_t exp) {
  M result = 1;
  while (exp > 0) {
    if (exp & 1) result = static_cast<M>(result * base);
    base = static_cast<M>(base * base);
    exp >>= 1;
  }
  return result;
}

// int_pow for any exponent: a negative one gives 0 but for bases 1 and -1, as torch's
// integer pow does (the exact result truncated toward zero).
template <typename M>
M int_pow_any(M base, M exp) {
  if constexpr (M(-1) < M(0)) {
    if (exp < 0) {
      if (base == M(1)) return M(1);
      if (base == M(-1)) return (exp & 1) ? M(-1) : M(1);
      return M(0);
    }
  }
  return int_pow(base, static_cast<int64_t>(exp));
}

}  // namespace pow_detail

// pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)
// Integer tensors with an integer exponent stay integers (a negative exponent is an
// error, as in torch); otherwise computed in out's floating dtype.
Tensor& pow_tensor_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& exponent,
                              Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx,
                  check_unary_out("pow.Tensor_Scalar_out", self, result_type(self, exponent),
                                  out),
                  InvalidArgument, out);
  TL_KERNEL_CHECK_MSG(ctx,
                      is_floating_type(out.dtype()) || !exponent.is_integral() ||
                          exponent.to<int64_t>() >= 0,
                      InvalidArgument, out,
                      "pow.Tensor_Scalar_out: integers to negative powers are not allowed");

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("pow.Tensor_Scalar_out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "pow.Tensor_Scalar_out", T, [&] {
    using M = acc_t<T>;
    if constexpr (is_integral_v<M>) {
      const int64_t e = exponent.to<int64_t>();
      apply_elementwise<M, T, kMask>(ctx, "pow.Tensor_Scalar_out", in, out,
                                     [e](M x) { return pow_detail::int_pow(x, e); });
    } else {
      const M e = exponent.to<M>();
      apply_elementwise<M, T, kMask>(ctx, "pow.Tensor_Scalar_out", in, out,
                                     [e](M x) { return static_cast<M>(math::pow(x, e)); });
    }
  });
  return out;
}

// pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)
// Elementwise self^exponent, broadcast and promoted as torch does; integers stay
// integers (see int_pow_any), floats use math::pow. torch has no Bool pow.
Tensor& pow_tensor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& exponent,
                              Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_binary_out("pow.Tensor_Tensor_out", self, exponent, out),
                  InvalidArgument, out);

  // Compute in out's dtype (16-bit floats in float).
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("pow.Tensor_Tensor_out");
  const Tensor* in[2] = {&self, &exponent};
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "pow.Tensor_Tensor_out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "pow.Tensor_Tensor_out", in, out, [](M x, M e) {
      if constexpr (is_integral_v<M>) {
        return pow_detail::int_pow_any(x, e);
      } else {
        return static_cast<M>(math::pow(x, e));
      }
    });
  });
  return out;
}

}  // namespace tailor::native
