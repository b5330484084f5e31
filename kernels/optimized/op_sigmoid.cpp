#include "kernels/optimized/util/vec.h"
#include "kernels/optimized/util/vec_math.h"
#include "kernels/optimized/util/vec_parallel.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// 1 / (1 + e^-x) of n contiguous floats, e^-x by vec_exp (a libm call per element is
// most of portable's time: SiLU's sigmoid took 10% of the Llama forward); the ragged end
// through one padded vector.
struct SigmoidSpan {
  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, int64_t n) {
    for (int64_t i = 0; i < n; i += W) {
      VecF<W> e;
      if (i + W <= n) {
        vec_load<W>(in + i, e);
      } else {
        vec_load_partial<W>(in + i, n - i, 0.0f, e);
      }
      e = -e;
      vec_exp<W>(e);
      const VecF<W> y = 1.0f / (1.0f + e);
      if (i + W <= n) {
        vec_store<W>(out + i, y);
      } else {
        vec_store_partial<W>(out + i, n - i, y);
      }
    }
  }
};

}  // namespace

// sigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Float only (the other dtypes go to portable).
Tensor& sigmoid_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx,
                  tailor::native::check_unary_out("sigmoid.out", self, ScalarType::Float, out) &&
                      self.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute
  vec_parallel_span<SigmoidSpan>(ctx, static_cast<int64_t>(self.numel()), kVecCostPolynomial,
                                 self.const_data<float>(), out.mutable_data<float>());
  return out;
}

}  // namespace tailor::optimized::native
