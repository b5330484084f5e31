#include "kernels/portable/util/binary.h"
#include "kernels/portable/util/minmax.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// The larger of self and other, broadcast and promoted; NaN if either is NaN, as in torch.
Tensor& maximum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_binary_out("maximum.out", self, other, out), InvalidArgument, out);

  // Compute in out's dtype (16-bit floats in float; Bool as false < true).
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("maximum.out");
  const Tensor* in[2] = {&self, &other};
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "maximum.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "maximum.out", in, out,
                                   [](M x, M y) { return max_propagate_nan(x, y); });
  });
  return out;
}

}  // namespace tailor::native
