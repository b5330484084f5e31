#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
Tensor& relu_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);
  TL_KERNEL_CHECK(ctx, same_dtype_and_dim_order(self, out), InvalidArgument, out);

  // Compute
  TL_SWITCH_REALHBF16_TYPES(self.dtype(), ctx, "relu.out", T, [&] {
    const T* in = self.const_data<T>();
    T* dst = out.mutable_data<T>();
    const size_t numel = self.numel();
    for (size_t i = 0; i < numel; ++i) {
      // "< 0" rather than "> 0" so NaN passes through, as in torch.
      dst[i] = static_cast<float>(in[i]) < 0.0f ? static_cast<T>(0) : in[i];
    }
  });
  return out;
}

}  // namespace tailor::native
