#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// expm1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// out = e^self - 1, accurate for self near 0 (F.celu exports through it);
// integer and Bool inputs give a floating out, as in torch.
Tensor& expm1_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("expm1.out", self, float_result_type(self.dtype()), out),
                  InvalidArgument, out);

  // Compute: 16-bit floats in float, rounded once.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("expm1.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "expm1.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "expm1.out", in, out, [](M x) { return math::expm1(x); });
  });
  return out;
}

}  // namespace tailor::native
