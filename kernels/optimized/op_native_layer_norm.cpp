#include "kernels/optimized/util/vec_parallel.h"
#include "kernels/portable/util/layer_norm.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// Each of `rows` rows of `cols` floats: mean, then the biased variance (two passes, for
// accuracy, as portable), then (x - mean) * rstd * weight + bias.
struct LayerNormRows {
  template <int W>
  TL_VEC_INLINE static void run(const float* x, const float* weight, const float* bias,
                                float eps, float* y, float* mean_out, float* rstd_out,
                                int64_t rows, int64_t cols) {
    using F = VecF<W>;
    for (int64_t r = 0; r < rows; ++r, x += cols, y += cols) {
      const float mean = vec_row_sum<W>(x, cols, 0.0f, false) / static_cast<float>(cols);
      const float var = vec_row_sum<W>(x, cols, mean, true) / static_cast<float>(cols);
      const float rstd = 1.0f / math::sqrt(var + eps);
      const F vmean = F{} + mean;
      const F vrstd = F{} + rstd;
      F v;
      F w = F{} + 1.0f;
      F b = F{};
      int64_t i = 0;
      for (; i + W <= cols; i += W) {
        vec_load<W>(x + i, v);
        if (weight != nullptr) vec_load<W>(weight + i, w);
        if (bias != nullptr) vec_load<W>(bias + i, b);
        vec_store<W>(y + i, (v - vmean) * vrstd * w + b);
      }
      for (; i < cols; ++i) {
        const float scaled = (x[i] - mean) * rstd * (weight != nullptr ? weight[i] : 1.0f);
        y[i] = scaled + (bias != nullptr ? bias[i] : 0.0f);
      }
      mean_out[r] = mean;
      rstd_out[r] = rstd;
    }
  }
};

}  // namespace

// native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//                       Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1,
//                       Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))
// Float only (the other dtypes go to portable): out0 = (x - mean) * rstd * weight + bias
// over the last len(normalized_shape) dims, out1 = mean, out2 = rstd.
void native_layer_norm_out(KernelContext& ctx, const Tensor& input, IntArrayRef normalized_shape,
                           const Tensor* weight, const Tensor* bias, double eps, Tensor& out0,
                           Tensor& out1, Tensor& out2) {
  // Validate and resize
  int64_t rows = 1;
  int64_t cols = 1;
  if (!tailor::native::check_layer_norm_out(ctx, input, normalized_shape, weight, bias, out0,
                                            out1, out2, &rows, &cols)) {
    return;
  }
  TL_KERNEL_CHECK(ctx, input.dtype() == ScalarType::Float, InvalidArgument, );

  // Compute (an empty row gives NaN statistics, as in torch), rows over the threads: an
  // element takes two sums and the scaling.
  const float* x = input.const_data<float>();
  const float* w = weight != nullptr ? weight->const_data<float>() : nullptr;
  const float* b = bias != nullptr ? bias->const_data<float>() : nullptr;
  float* y = out0.mutable_data<float>();
  float* mean = out1.mutable_data<float>();
  float* rstd = out2.mutable_data<float>();
  ctx.parallel_range(rows, 4 * cols, [&](int64_t begin, int64_t end, KernelScratch&) {
    vec_run<LayerNormRows>(x + begin * cols, w, b, static_cast<float>(eps), y + begin * cols,
                           mean + begin, rstd + begin, end - begin, cols);
  });
}

}  // namespace tailor::optimized::native
