#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
// out = self + alpha * other, broadcast, computed in out's dtype (16-bit floats in float).
Tensor& add_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_binary_out("add.out", self, other, out), InvalidArgument, out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("add.out");
  const Tensor* in[2] = {&self, &other};
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "add.out", T, [&] {
    using M = acc_t<T>;
    const M a = alpha.to<M>();
    apply_elementwise<M, T, kMask>(ctx, "add.out", in, out,
                                   [a](M x, M y) { return add_value(x, mul_value(a, y)); });
  });
  return out;
}

// add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)
Tensor& add_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_scalar_out("add.Scalar_out", self, other, out), InvalidArgument,
                  out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("add.Scalar_out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "add.Scalar_out", T, [&] {
    using M = acc_t<T>;
    const M b = mul_value(alpha.to<M>(), other.to<M>());
    apply_elementwise<M, T, kMask>(ctx, "add.Scalar_out", in, out,
                                   [b](M x) { return add_value(x, b); });
  });
  return out;
}

}  // namespace tailor::native
