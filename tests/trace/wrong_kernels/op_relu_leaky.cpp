// Test-only (tests/trace/test_wrong_kernel.py): a relu.out that lets a tenth of every
// negative value through, the deliberate error the inspector must locate.
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!), Float only
Tensor& leaky_relu_by_mistake_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);
  TL_KERNEL_CHECK(ctx, self.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute (wrong on purpose)
  const float* in = self.const_data<float>();
  float* dst = out.mutable_data<float>();
  for (size_t i = 0; i < self.numel(); ++i) dst[i] = in[i] < 0.0f ? 0.1f * in[i] : in[i];
  return out;
}

}  // namespace tailor::native
