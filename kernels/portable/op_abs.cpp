#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// |self| in self's dtype (the most negative integer stays itself, as in torch).
Tensor& abs_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("abs.out", self, self.dtype(), out), InvalidArgument,
                  out);

  // Compute: fabs for floats, so -0.0 becomes +0.0.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("abs.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "abs.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "abs.out", in, out, [](M x) {
      if constexpr (is_integral_v<M>) {
        return static_cast<M>(x < 0 ? -x : x);
      } else {
        return math::fabs(x);
      }
    });
  });
  return out;
}

}  // namespace tailor::native
