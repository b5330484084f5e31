#include "kernels/optimized/util/vec.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// x * x of n contiguous floats (the same value as powf(x, 2): both the rounded square).
struct SquareSpan {
  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, int64_t n) {
    int64_t i = 0;
    for (; i + W <= n; i += W) {
      VecF<W> v;
      vec_load<W>(in + i, v);
      vec_store<W>(out + i, v * v);
    }
    for (; i < n; ++i) out[i] = in[i] * in[i];
  }
};

}  // namespace

// pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)
// Float only (the other dtypes go to portable). The square, RMS norm's x.pow(2), by
// vectors (portable's powf call per element took a fifth of the Llama forward); any
// other exponent by powf, as portable.
Tensor& pow_tensor_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& exponent,
                              Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx,
                  tailor::native::check_unary_out("pow.Tensor_Scalar_out", self,
                                                  ScalarType::Float, out) &&
                      self.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute
  const float* x = self.const_data<float>();
  float* y = out.mutable_data<float>();
  const int64_t n = static_cast<int64_t>(self.numel());
  const float e = exponent.to<float>();
  if (e == 2.0f) {
    vec_run<SquareSpan>(x, y, n);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = math::pow(x[i], e);
  }
  return out;
}

}  // namespace tailor::optimized::native
