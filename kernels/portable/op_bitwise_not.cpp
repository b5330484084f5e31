#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// bitwise_not.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// ~self for integers, logical not for Bool; floating dtypes are rejected, as in torch.
Tensor& bitwise_not_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("bitwise_not.out", self, self.dtype(), out),
                  InvalidArgument, out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("bitwise_not.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_INTB_TYPES(out.dtype(), ctx, "bitwise_not.out", T, [&] {
    // x ^ all-ones: ~x for integers, and !x for Bool (where T(-1) is true).
    using M = acc_t<T>;  // bool for Bool
    apply_elementwise<M, T, kMask>(ctx, "bitwise_not.out", in, out,
                                   [](M x) { return static_cast<M>(x ^ static_cast<M>(-1)); });
  });
  return out;
}

}  // namespace tailor::native
