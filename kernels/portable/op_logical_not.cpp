#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// logical_not.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Any input dtype (nonzero is true); out written as 0 or 1 in its dtype.
Tensor& logical_not_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("logical_not.out", self, ScalarType::Bool, out),
                  InvalidArgument, out);

  // Compute
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("logical_not.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "logical_not.out", T, [&] {
    apply_elementwise<bool, T, kMask>(ctx, "logical_not.out", in, out,
                                      [](bool x) { return !x; });
  });
  return out;
}

}  // namespace tailor::native
