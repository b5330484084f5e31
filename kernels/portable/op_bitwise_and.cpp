#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// bitwise_and.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// Broadcast, in the promoted integer or Bool dtype; floating dtypes are rejected.
Tensor& bitwise_and_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                               Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_binary_out("bitwise_and.Tensor_out", self, other, out),
                  InvalidArgument, out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("bitwise_and.Tensor_out");
  const Tensor* in[2] = {&self, &other};
  TL_SWITCH_INTB_TYPES(out.dtype(), ctx, "bitwise_and.Tensor_out", T, [&] {
    using M = acc_t<T>;  // bool for Bool
    apply_elementwise<M, T, kMask>(ctx, "bitwise_and.Tensor_out", in, out,
                                   [](M x, M y) { return static_cast<M>(x & y); });
  });
  return out;
}

}  // namespace tailor::native
