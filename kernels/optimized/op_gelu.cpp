#include "kernels/optimized/util/vec_math.h"
#include "kernels/optimized/util/vec_parallel.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// GELU of n contiguous floats, exact (erf) or the tanh form; the ragged end goes through
// one padded vector.
struct GeluSpan {
  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, int64_t n, bool use_tanh) {
    VecF<W> v;
    int64_t i = 0;
    for (; i + W <= n; i += W) {
      vec_load<W>(in + i, v);
      use_tanh ? vec_gelu_tanh<W>(v) : vec_gelu_erf<W>(v);
      vec_store<W>(out + i, v);
    }
    if (i < n) {
      vec_load_partial<W>(in + i, n - i, 0.0f, v);
      use_tanh ? vec_gelu_tanh<W>(v) : vec_gelu_erf<W>(v);
      vec_store_partial<W>(out + i, n - i, v);
    }
  }
};

}  // namespace

// gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out) -> Tensor(a!)
// Float only (the other dtypes go to portable). "none": x / 2 * (1 + erf(x / sqrt(2)));
// "tanh": x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
Tensor& gelu_out(KernelContext& ctx, const Tensor& self, const char* approximate,
                 Tensor& out) {
  // Validate
  const bool use_tanh = string_equal(approximate, "tanh");
  TL_KERNEL_CHECK_MSG(ctx, use_tanh || string_equal(approximate, "none"), InvalidArgument, out,
                      "gelu.out: approximate must be 'none' or 'tanh'");
  TL_KERNEL_CHECK(ctx,
                  tailor::native::check_unary_out("gelu.out", self, self.dtype(), out) &&
                      self.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute
  vec_parallel_span<GeluSpan>(ctx, static_cast<int64_t>(self.numel()), kVecCostPolynomial,
                              self.const_data<float>(), out.mutable_data<float>(), use_tanh);
  return out;
}

}  // namespace tailor::optimized::native
