#include "kernels/portable/util/fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)
Tensor& full_out(KernelContext& ctx, IntArrayRef size, const Scalar& fill_value, Tensor& out) {
  // Validate and resize
  TL_KERNEL_CHECK_MSG(ctx, resize_tensor(out, size) == Error::Ok, InvalidArgument, out,
                      "full.out: out cannot take the requested size");
  if (!check_scalar_fits(ctx, "full.out", "fill_value", fill_value, out.dtype())) return out;

  // Compute
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "full.out", T, [&] { fill_with<T>(out, fill_value); });
  return out;
}

}  // namespace tailor::native
