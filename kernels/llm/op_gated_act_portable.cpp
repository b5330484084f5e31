// The portable kernel of llm::gated_act.out (kernels/llm/llm_portable.yaml): plain C++, the
// reference the optimized kernel is held to, and what profile=size builds.
#include "kernels/llm/gated_act_shape.h"
#include "runtime/kernel/kernel_includes.h"

namespace llm::portable::native {

using ::tailor::KernelContext;
using ::tailor::Tensor;
namespace math = ::tailor::math;

namespace {

// act(x) in torch's formulas (F.silu, F.gelu and its tanh form).
inline float activate(GatedAct act, float x) {
  switch (act) {
    case GatedAct::Silu:
      return x / (1.0f + math::exp(-x));
    case GatedAct::Gelu:
      return 0.5f * x * (1.0f + math::erf(x * 0.70710678f));  // x Phi(x)
    case GatedAct::GeluTanh:
      return 0.5f * x * (1.0f + math::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
  }
  return x;
}

}  // namespace

// gated_act.out(Tensor h, str act, *, Tensor(a!) out) -> Tensor(a!)
Tensor& gated_act_out(KernelContext& ctx, const Tensor& h, const char* act, Tensor& out) {
  // Validate and resize.
  GatedActShape shape;
  if (!check_gated_act(ctx, h, act, out, shape)) return out;

  // Compute: each row's gate half activated, times its up half.
  const int64_t n = shape.cols;
  for (int64_t r = 0; r < shape.rows; ++r) {
    const float* gate = h.const_data<float>() + r * 2 * n;
    const float* up = gate + n;
    float* o = out.mutable_data<float>() + r * n;
    for (int64_t i = 0; i < n; ++i) o[i] = activate(shape.act, gate[i]) * up[i];
  }
  return out;
}

}  // namespace llm::portable::native
