#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> Tensor(a!)
// out = self > 0 ? self : self * negative_slope, on floating tensors (as torch's CPU).
Tensor& leaky_relu_out(KernelContext& ctx, const Tensor& self, const Scalar& negative_slope,
                       Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("leaky_relu.out", self, self.dtype(), out),
                  InvalidArgument, out);
  TL_KERNEL_CHECK_MSG(ctx, is_floating_type(self.dtype()), InvalidArgument, out,
                      "leaky_relu.out: self must be floating, got %s",
                      scalar_type_name(self.dtype()));

  // Compute: 16-bit floats in float, rounded once. NaN fails "> 0" and stays NaN.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("leaky_relu.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "leaky_relu.out", T, [&] {
    using M = acc_t<T>;
    const M slope = negative_slope.to<M>();
    apply_elementwise<M, T, kMask>(ctx, "leaky_relu.out", in, out,
                                   [slope](M x) { return x > M(0) ? x : x * slope; });
  });
  return out;
}

}  // namespace tailor::native
