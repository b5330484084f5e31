#include "kernels/quantized/util/embedding_lookup.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

// embedding_byte.out(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points,
//                    int weight_quant_min, int weight_quant_max, Tensor indices, *,
//                    Tensor(a!) out) -> Tensor(a!)
// ExecuTorch's schema: out[..., :] = (weight[i, :] - zero_point[i]) * scale[i] for each
// index i, from an int8 table [V, D] with one scale (and zero point) per row. The table
// stays int8 in the program; only the rows looked up are widened.
Tensor& embedding_byte_out(KernelContext& ctx, const Tensor& weight, const Tensor& weight_scales,
                           const Tensor* weight_zero_points, int64_t weight_quant_min,
                           int64_t weight_quant_max, const Tensor& indices, Tensor& out) {
  // Validate
  const int64_t rows = weight.dim() == 2 ? weight.size(0) : 0;
  TL_KERNEL_CHECK_MSG(ctx,
                      weight.dim() == 2 && weight.dtype() == ScalarType::Char &&
                          weight_scales.dtype() == ScalarType::Float &&
                          static_cast<int64_t>(weight_scales.numel()) == rows &&
                          (weight_zero_points == nullptr ||
                           (weight_zero_points->dtype() == ScalarType::Float &&
                            static_cast<int64_t>(weight_zero_points->numel()) == rows)),
                      InvalidArgument, out,
                      "embedding_byte.out: weight must be Char [V, D] with Float scales (and "
                      "zero points) of V elements");
  TL_KERNEL_CHECK(ctx,
                  out.dtype() == ScalarType::Float && is_default_dim_order(weight) &&
                      is_default_dim_order(weight_scales) && is_default_dim_order(indices) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize: indices' shape plus the embedding dim.
  const int64_t dim = weight.size(1);
  if (!resize_for_lookup(ctx, "quantized_decomposed::embedding_byte.out", indices, dim, out)) {
    return out;
  }

  // Compute: one dequantized row per index.
  const int8_t* table = weight.const_data<int8_t>();
  const float* scales = weight_scales.const_data<float>();
  const float* zero_points =
      weight_zero_points != nullptr ? weight_zero_points->const_data<float>() : nullptr;
  float* dst = out.mutable_data<float>();
  for_each_lookup(ctx, "quantized_decomposed::embedding_byte.out", indices, rows,
                  [&](size_t i, int64_t row) {
    const int8_t* src = table + row * dim;
    const float zero = zero_points != nullptr ? zero_points[row] : 0.0f;
    for (int64_t j = 0; j < dim; ++j) {
      dst[i * dim + j] = (static_cast<float>(src[j]) - zero) * scales[row];
    }
  });
  return out;
}

}  // namespace tailor::quantized::native
