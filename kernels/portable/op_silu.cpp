#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// silu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// out = self / (1 + e^-self) (self * sigmoid(self)); floating dtypes, as in torch.
Tensor& silu_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, is_floating_type(self.dtype()), InvalidArgument, out,
                      "silu.out: self has dtype %s, expected a floating type",
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx, check_unary_out("silu.out", self, self.dtype(), out), InvalidArgument, out);

  // Compute: 16-bit floats in float, rounded once.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("silu.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "silu.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "silu.out", in, out,
                                   [](M x) { return x / (M(1) + math::exp(-x)); });
  });
  return out;
}

}  // namespace tailor::native
