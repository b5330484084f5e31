// The optimized kernel of llm::rope.out (kernels/llm/llm_optimized.yaml; the plain C++
// reference is op_rope_portable.cpp): each head's two halves rotated W floats at a time
// at the widest vector width of the CPU (kernels/optimized/util/vec.h), the table rows
// loaded once per vector and reused by every head of the token.
#include "kernels/llm/rope_shape.h"
#include "kernels/optimized/util/vec.h"
#include "runtime/kernel/kernel_includes.h"

namespace llm::optimized::native {

using ::tailor::KernelContext;
using ::tailor::Tensor;
namespace opt = ::tailor::optimized;

namespace {

// n floats (n <= W) into v, out of v: whole vectors in one instruction, a ragged end
// lane by lane.
template <int W>
TL_VEC_INLINE void load(const float* p, int64_t n, opt::VecF<W>& v) {
  n == W ? opt::vec_load<W>(p, v) : opt::vec_load_partial<W>(p, n, 0.0f, v);
}

template <int W>
TL_VEC_INLINE void store(float* p, int64_t n, const opt::VecF<W>& v) {
  n == W ? opt::vec_store<W>(p, v) : opt::vec_store_partial<W>(p, n, v);
}

// One token's rows: `heads` rows of `d` floats, the first 2 * half rotating.
struct RopeToken {
  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, const float* c, const float* s,
                                int64_t heads, int64_t d, int64_t half) {
    using V = opt::VecF<W>;
    for (int64_t i = 0; i < half; i += W) {
      const int64_t n = half - i < W ? half - i : W;  // the ragged end: a partial vector
      V c_lo, c_hi, s_lo, s_hi, lo, hi;
      load<W>(c + i, n, c_lo);
      load<W>(c + half + i, n, c_hi);
      load<W>(s + i, n, s_lo);
      load<W>(s + half + i, n, s_hi);
      for (int64_t h = 0; h < heads; ++h) {
        const float* x = in + h * d;
        float* o = out + h * d;
        load<W>(x + i, n, lo);
        load<W>(x + half + i, n, hi);
        const V new_lo = lo * c_lo - hi * s_lo;
        const V new_hi = hi * c_hi + lo * s_hi;
        store<W>(o + i, n, new_lo);
        store<W>(o + half + i, n, new_hi);
      }
    }
    for (int64_t h = 0; h < heads; ++h) {  // partial rotary: the rest passes through
      for (int64_t i = 2 * half; i < d; ++i) out[h * d + i] = in[h * d + i];
    }
  }
};

}  // namespace

// rope.out(Tensor x, Tensor cos, Tensor sin, *, Tensor(a!) out) -> Tensor(a!)
Tensor& rope_out(KernelContext& ctx, const Tensor& x, const Tensor& cos, const Tensor& sin,
                 Tensor& out) {
  // Validate and resize.
  RopeShape shape;
  if (!check_rope(ctx, x, cos, sin, out, shape)) return out;

  // Compute: one token (every head) at a time.
  const int64_t token = shape.heads * shape.head_dim;
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t t = 0; t < shape.tokens; ++t) {
      const int64_t row = (b * shape.tokens + t) * token;
      opt::vec_run<RopeToken>(x.const_data<float>() + row, out.mutable_data<float>() + row,
                              cos.const_data<float>() + t * shape.rotary,
                              sin.const_data<float>() + t * shape.rotary, shape.heads,
                              shape.head_dim, shape.rotary / 2);
    }
  }
  return out;
}

}  // namespace llm::optimized::native
