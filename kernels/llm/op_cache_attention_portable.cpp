// The portable kernel of llm::cache_attention.out (kernels/llm/llm_portable.yaml): plain
// C++, the reference the optimized kernel is held to, and what profile=size builds.
//
// Each query row makes one pass over the positions it sees with an online softmax: the
// running maximum m, the running sum l of exp(score - m) and the output row as the
// accumulator, rescaled by exp(m_old - m_new) when the maximum grows. No scratch, any
// cache length and head size.
#include "kernels/llm/cache_attention_shape.h"
#include "runtime/kernel/kernel_includes.h"
#include "runtime/kernel/math.h"

namespace llm::portable::native {

using ::tailor::KernelContext;
using ::tailor::Tensor;

// cache_attention.out(Tensor q, Tensor k_cache, Tensor v_cache, Tensor input_pos,
//                     int sliding_window, float scale, *, Tensor(a!) out) -> Tensor(a!)
Tensor& cache_attention_out(KernelContext& ctx, const Tensor& q, const Tensor& k_cache,
                            const Tensor& v_cache, const Tensor& input_pos,
                            int64_t sliding_window, double scale, Tensor& out) {
  // Validate and resize.
  CacheAttentionShape shape;
  if (!check_cache_attention(ctx, q, k_cache, v_cache, input_pos, sliding_window, out, shape)) {
    return out;
  }

  // Compute: one query row (b, t, h) at a time.
  const int64_t d = shape.head_dim;
  const int64_t stride = shape.cache_stride();
  const float alpha = static_cast<float>(scale);
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t t = 0; t < shape.queries; ++t) {
      for (int64_t h = 0; h < shape.heads; ++h) {
        const int64_t row = ((b * shape.queries + t) * shape.heads + h) * d;
        const float* qr = q.const_data<float>() + row;
        float* o = out.mutable_data<float>() + row;
        const int64_t cache = (b * shape.positions * shape.kv_heads + h / shape.group) * d;
        const float* k = k_cache.const_data<float>() + cache;
        const float* v = v_cache.const_data<float>() + cache;
        for (int64_t i = 0; i < d; ++i) o[i] = 0.0f;
        float m = -__builtin_inff();
        float l = 0.0f;
        for (int64_t s = shape.first(t); s <= shape.last(t); ++s) {
          float dot = 0.0f;
          for (int64_t i = 0; i < d; ++i) dot += qr[i] * k[s * stride + i];
          const float score = alpha * dot;
          if (score > m) {  // rescale what was summed against the old maximum
            const float factor = ::tailor::math::exp(m - score);
            for (int64_t i = 0; i < d; ++i) o[i] *= factor;
            l *= factor;
            m = score;
          }
          const float p = ::tailor::math::exp(score - m);
          l += p;
          for (int64_t i = 0; i < d; ++i) o[i] += p * v[s * stride + i];
        }
        for (int64_t i = 0; i < d; ++i) o[i] /= l;
      }
    }
  }
  return out;
}

}  // namespace llm::portable::native
