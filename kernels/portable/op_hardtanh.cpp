#include "kernels/portable/util/minmax.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
//     -> Tensor(a!)
// clamp(self, min_val, max_val) without type promotion (F.relu6 exports as hardtanh(0, 6)):
// integer tensors take the bounds truncated to their type, as in torch; Bool is unsupported.
Tensor& hardtanh_out(KernelContext& ctx, const Tensor& self, const Scalar& min_val,
                     const Scalar& max_val, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_unary_out("hardtanh.out", self, self.dtype(), out),
                  InvalidArgument, out);

  // Compute: 16-bit floats in float; min_val > max_val gives max_val, NaN stays NaN.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("hardtanh.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "hardtanh.out", T, [&] {
    using M = acc_t<T>;
    const M lo = scalar_bound<M>(min_val);
    const M hi = scalar_bound<M>(max_val);
    apply_elementwise<M, T, kMask>(ctx, "hardtanh.out", in, out, [lo, hi](M x) {
      return min_propagate_nan(max_propagate_nan(x, lo), hi);
    });
  });
  return out;
}

}  // namespace tailor::native
