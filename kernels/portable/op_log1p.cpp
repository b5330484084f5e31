#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// out = log(1 + self), accurate for self near 0 (softplus and mish export through it);
// integer and Bool inputs give a floating out, as in torch.
Tensor& log1p_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("log1p.out", self, float_result_type(self.dtype()), out),
                  InvalidArgument, out);

  // Compute: 16-bit floats in float, rounded once.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("log1p.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "log1p.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "log1p.out", in, out,
                                   [](M x) { return math::log1p(x); });
  });
  return out;
}

}  // namespace tailor::native
