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
    apply_elementwise<T, T, kMask>(ctx, "bitwise_not.out", in, out,
                                   [](T x) { return static_cast<T>(x ^ static_cast<T>(-1)); });
  });
  return out;
}

}  // namespace tailor::native
