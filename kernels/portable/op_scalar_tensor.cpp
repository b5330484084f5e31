#include "kernels/portable/util/fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// scalar_tensor.out(Scalar s, *, Tensor(a!) out) -> Tensor(a!)
// A 0-d tensor holding s in out's dtype.
Tensor& scalar_tensor_out(KernelContext& ctx, const Scalar& s, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, out.dim() == 0, InvalidArgument, out,
                      "scalar_tensor.out: out must be 0-d");
  // torch checks s as full does, but for Half and BFloat16, which its one-element fill
  // converts unchecked (70000 is inf).
  const bool sixteen_bit_float =
      out.dtype() == ScalarType::Half || out.dtype() == ScalarType::BFloat16;
  if (!sixteen_bit_float && !check_scalar_fits(ctx, "scalar_tensor.out", "s", s, out.dtype())) {
    return out;
  }

  // Compute
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "scalar_tensor.out", T, [&] { fill_with<T>(out, s); });
  return out;
}

}  // namespace tailor::native
