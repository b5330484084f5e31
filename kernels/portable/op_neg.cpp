#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// out = -self; Bool is rejected, as torch does.
Tensor& neg_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("neg.out", self, self.dtype(), out), InvalidArgument,
                  out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("neg.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "neg.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "neg.out", in, out,
                                   [](M x) { return static_cast<M>(-x); });
  });
  return out;
}

}  // namespace tailor::native
