#include "kernels/portable/util/fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None,
//               Tensor(a!) out) -> Tensor(a!)
// out takes self's shape (its dtype is out's own); self's values are not read.
Tensor& full_like_out(KernelContext& ctx, const Tensor& self, const Scalar& fill_value,
                      Optional<int64_t> memory_format, Tensor& out) {
  // Validate and resize
  TL_KERNEL_CHECK_MSG(ctx, resize_like(out, self) == Error::Ok && is_default_dim_order(out),
                      InvalidArgument, out,
                      "full_like.out: out cannot take self's shape or is not contiguous");
  if (!check_scalar_fits(ctx, "full_like.out", "fill_value", fill_value, out.dtype())) {
    return out;
  }

  // Compute
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "full_like.out", T, [&] {
    fill_with<T>(out, fill_value);
  });
  return out;
}

}  // namespace tailor::native
