#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// Broadcast product in out's dtype; on Bool it is a logical and, as in torch.
Tensor& mul_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_binary_out("mul.out", self, other, out), InvalidArgument, out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("mul.out");
  const Tensor* in[2] = {&self, &other};
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "mul.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "mul.out", in, out,
                                   [](M x, M y) { return mul_value(x, y); });
  });
  return out;
}

// mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
Tensor& mul_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_scalar_out("mul.Scalar_out", self, other, out), InvalidArgument,
                  out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("mul.Scalar_out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "mul.Scalar_out", T, [&] {
    using M = acc_t<T>;
    const M b = other.to<M>();
    apply_elementwise<M, T, kMask>(ctx, "mul.Scalar_out", in, out,
                                   [b](M x) { return mul_value(x, b); });
  });
  return out;
}

}  // namespace tailor::native
