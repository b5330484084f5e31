#include "kernels/portable/util/fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// scalar_tensor.out(Scalar s, *, Tensor(a!) out) -> Tensor(a!)
// A 0-d tensor holding s in out's dtype.
Tensor& scalar_tensor_out(KernelContext& ctx, const Scalar& s, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, out.dim() == 0, InvalidArgument, out,
                      "scalar_tensor.out: out must be 0-d");

  // Compute
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "scalar_tensor.out", T, [&] { fill_with<T>(out, s); });
  return out;
}

}  // namespace tailor::native
