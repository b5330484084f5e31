// The portable kernel of llm::rope.out (kernels/llm/llm_portable.yaml): plain C++, the
// reference the optimized kernel is held to, and what profile=size builds.
#include "kernels/llm/rope_shape.h"
#include "runtime/kernel/kernel_includes.h"

namespace llm::portable::native {

using ::tailor::KernelContext;
using ::tailor::Tensor;

// rope.out(Tensor x, Tensor cos, Tensor sin, *, Tensor(a!) out) -> Tensor(a!)
Tensor& rope_out(KernelContext& ctx, const Tensor& x, const Tensor& cos, const Tensor& sin,
                 Tensor& out) {
  // Validate and resize.
  RopeShape shape;
  if (!check_rope(ctx, x, cos, sin, out, shape)) return out;

  // Compute: each head's row of each token, with that token's row of the tables.
  const int64_t d = shape.head_dim;
  const int64_t half = shape.rotary / 2;
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t t = 0; t < shape.tokens; ++t) {
      const float* c = cos.const_data<float>() + t * shape.rotary;
      const float* s = sin.const_data<float>() + t * shape.rotary;
      for (int64_t h = 0; h < shape.heads; ++h) {
        const int64_t row = ((b * shape.tokens + t) * shape.heads + h) * d;
        const float* in = x.const_data<float>() + row;
        float* o = out.mutable_data<float>() + row;
        for (int64_t i = 0; i < half; ++i) {
          const float lo = in[i], hi = in[i + half];
          o[i] = lo * c[i] - hi * s[i];
          o[i + half] = hi * c[i + half] + lo * s[i + half];
        }
        for (int64_t i = shape.rotary; i < d; ++i) o[i] = in[i];
      }
    }
  }
  return out;
}

}  // namespace llm::portable::native
