#include "kernels/optimized/util/vec_math.h"
#include "kernels/portable/util/softmax.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// Softmax of `rows` contiguous rows of n floats: the row's max, exp(x - max) written to
// out while summing, then out times 1 / sum. The vectors' ragged end pads with -inf for
// the max and is left out of the sum.
struct SoftmaxRows {
  template <int W>
  TL_VEC_INLINE static void run(const float* in, float* out, int64_t rows, int64_t n) {
    using F = VecF<W>;
    const int64_t full = n / W * W;
    const int64_t rest = n - full;
    for (int64_t r = 0; r < rows; ++r, in += n, out += n) {
      F v;
      F vmax = F{} - __builtin_inff();
      for (int64_t i = 0; i < full; i += W) {
        vec_load<W>(in + i, v);
        vec_max_into<W>(vmax, v);
      }
      if (rest > 0) {
        vec_load_partial<W>(in + full, rest, -__builtin_inff(), v);
        vec_max_into<W>(vmax, v);
      }
      const F max = F{} + vec_max<W>(vmax);
      F vsum = F{};
      for (int64_t i = 0; i < full; i += W) {
        vec_load<W>(in + i, v);
        v -= max;
        vec_exp<W>(v);
        vsum += v;
        vec_store<W>(out + i, v);
      }
      float sum = vec_sum<W>(vsum);
      if (rest > 0) {
        vec_load_partial<W>(in + full, rest, 0.0f, v);
        v -= max;
        vec_exp<W>(v);
        for (int64_t i = 0; i < rest; ++i) sum += v[i];
        vec_store_partial<W>(out + full, rest, v);
      }
      const F scale = F{} + 1.0f / sum;
      for (int64_t i = 0; i < full; i += W) {
        vec_load<W>(out + i, v);
        vec_store<W>(out + i, v * scale);
      }
      for (int64_t i = full; i < n; ++i) out[i] *= scale[0];
    }
  }
};

}  // namespace

// _softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)
// Float only (the other dtypes go to portable). Along the last dim (attention's
// softmax), rows of vectors; along another, portable's strided rows.
Tensor& _softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                     Tensor& out) {
  // Validate
  tailor::native::SoftmaxSplit split;
  TL_KERNEL_CHECK(ctx,
                  tailor::native::check_softmax_out("_softmax.out", self, dim, half_to_float,
                                                    out, &split) &&
                      out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute
  if (self.numel() == 0) {
    return out;
  }
  if (split.inner == 1) {
    vec_run<SoftmaxRows>(self.const_data<float>(), out.mutable_data<float>(), split.outer,
                         split.n);
  } else {
    tailor::native::softmax_rows(self.const_data<float>(), out.mutable_data<float>(), split,
                                 false);
  }
  return out;
}

}  // namespace tailor::optimized::native
