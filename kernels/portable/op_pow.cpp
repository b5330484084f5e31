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
  constexpr uint32_t kMask = selected_dtype_mask("pow.Tensor_Scalar_out");
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

}  // namespace tailor::native
