// The portable kernel of llm::rms_norm.out (kernels/llm/llm_portable.yaml): plain C++, the
// reference the optimized kernel is held to, and what profile=size builds.
#include "kernels/llm/rms_norm_shape.h"
#include "runtime/kernel/kernel_includes.h"

namespace llm::portable::native {

using ::tailor::KernelContext;
using ::tailor::Tensor;

// rms_norm.out(Tensor x, Tensor weight, float eps, *, Tensor(a!) out) -> Tensor(a!)
Tensor& rms_norm_out(KernelContext& ctx, const Tensor& x, const Tensor& weight, double eps,
                     Tensor& out) {
  // Validate and resize.
  RmsNormShape shape;
  if (!check_rms_norm(ctx, x, weight, out, shape)) return out;

  // Compute: each row's mean square, then x * rsqrt(it + eps) * weight, multiplied in
  // torch's order (x * r first) so the rounding is eager's.
  const int64_t d = shape.cols;
  const float* w = weight.const_data<float>();
  const float e = static_cast<float>(eps);
  for (int64_t r = 0; r < shape.rows; ++r) {
    const float* in = x.const_data<float>() + r * d;
    float* o = out.mutable_data<float>() + r * d;
    float squares = 0.0f;
    for (int64_t i = 0; i < d; ++i) squares += in[i] * in[i];
    const float scale = 1.0f / ::tailor::math::sqrt(squares / static_cast<float>(d) + e);
    for (int64_t i = 0; i < d; ++i) o[i] = in[i] * scale * w[i];
  }
  return out;
}

}  // namespace llm::portable::native
