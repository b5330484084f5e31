// The project's relu.out, Float only (manifests/kernels/mine.yaml): compiled into the
// runtime from the project's directory.
#include "runtime/kernel/kernel_includes.h"

namespace mine::native {

using ::tailor::KernelContext;
using ::tailor::ScalarType;
using ::tailor::Tensor;

// relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
Tensor& relu_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  TL_KERNEL_CHECK(ctx, self.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float,
                  InvalidArgument, out);
  TL_KERNEL_CHECK(ctx, ::tailor::resize_like(out, self) == ::tailor::Error::Ok,
                  InvalidArgument, out);
  const float* x = self.const_data<float>();
  float* y = out.mutable_data<float>();
  for (size_t i = 0; i < self.numel(); ++i) {
    y[i] = x[i] > 0.0f ? x[i] : 0.0f;
  }
  return out;
}

}  // namespace mine::native
