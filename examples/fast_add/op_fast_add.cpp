// A user's kernel for the core operator add.out, Float only: fast_add.yaml puts it ahead
// of the target's libraries for Float calls, and portable's add_out serves every other
// dtype. It takes the common case alone (equal shapes, contiguous) in one plain loop the
// compiler vectorizes; a broadcast is rejected, so declare it only for models that add
// tensors of one shape.
#include "runtime/kernel/kernel_includes.h"

namespace fast::native {

using ::tailor::KernelContext;
using ::tailor::Scalar;
using ::tailor::ScalarType;
using ::tailor::Tensor;

static bool same_sizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) {
    return false;
  }
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) != b.size(d)) {
      return false;
    }
  }
  return true;
}

// add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
Tensor& add_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  // Validate: Float tensors of one shape, contiguous.
  TL_KERNEL_CHECK_MSG(ctx,
                      self.dtype() == ScalarType::Float && other.dtype() == ScalarType::Float &&
                          out.dtype() == ScalarType::Float && same_sizes(self, other) &&
                          ::tailor::is_default_dim_order(self) &&
                          ::tailor::is_default_dim_order(other),
                      InvalidArgument, out,
                      "fast add.out: Float tensors of one shape only (no broadcast)");
  TL_KERNEL_CHECK(ctx, ::tailor::resize_like(out, self) == ::tailor::Error::Ok,
                  InvalidArgument, out);

  // Compute
  const float a = alpha.to<float>();
  const float* x = self.const_data<float>();
  const float* y = other.const_data<float>();
  float* z = out.mutable_data<float>();
  for (size_t i = 0; i < self.numel(); ++i) {
    z[i] = x[i] + a * y[i];
  }
  return out;
}

}  // namespace fast::native
