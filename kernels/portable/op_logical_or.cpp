#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// logical_or.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// Broadcast; any input dtype (nonzero is true), out written as 0 or 1 in its dtype.
Tensor& logical_or_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  // Validate
  const Tensor* in[2] = {&self, &other};
  TL_KERNEL_CHECK_MSG(ctx, resize_to_broadcast(out, in, 2), InvalidArgument, out,
                      "logical_or.out: shapes do not broadcast to the out tensor");
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(other) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("logical_or.out");
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "logical_or.out", T, [&] {
    apply_elementwise<bool, T, kMask>(ctx, "logical_or.out", in, out,
                                      [](bool x, bool y) { return x || y; });
  });
  return out;
}

}  // namespace tailor::native
