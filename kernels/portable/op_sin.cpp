#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// sin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Sine (of radians); integer and Bool inputs give a floating out, as in torch.
Tensor& sin_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("sin.out", self, float_result_type(self.dtype()), out),
                  InvalidArgument, out);

  // Compute: 16-bit floats in float, rounded once.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("sin.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "sin.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "sin.out", in, out, [](M x) { return math::sin(x); });
  });
  return out;
}

}  // namespace tailor::native
