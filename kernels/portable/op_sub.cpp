#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
// out = self - alpha * other, broadcast; Bool is rejected, as torch does.
Tensor& sub_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_binary_out("sub.out", self, other, out), InvalidArgument, out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("sub.out");
  const Tensor* in[2] = {&self, &other};
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "sub.out", T, [&] {
    using M = acc_t<T>;
    const M a = alpha.to<M>();
    apply_elementwise<M, T, kMask>(ctx, "sub.out", in, out,
                                   [a](M x, M y) { return sub_value(x, mul_value(a, y)); });
  });
  return out;
}

// sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)
Tensor& sub_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_scalar_out("sub.Scalar_out", self, other, out), InvalidArgument,
                  out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("sub.Scalar_out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "sub.Scalar_out", T, [&] {
    using M = acc_t<T>;
    const M b = mul_value(alpha.to<M>(), other.to<M>());
    apply_elementwise<M, T, kMask>(ctx, "sub.Scalar_out", in, out,
                                   [b](M x) { return sub_value(x, b); });
  });
  return out;
}

}  // namespace tailor::native
