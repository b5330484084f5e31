#include "kernels/quantized/util/embedding_lookup.h"
#include "kernels/quantized/util/qlinear.h"
#include "kernels/quantized/util/qlinear_operands.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

namespace {

// Row `row` (0..7) of one packed block (util/qlinear_layout.h), dequantized into
// dst[0..dim): int8 with its row's scale `scale`, int4 with the block's group scales
// (groups of `group` inputs).
void dequantize_row(const void* block, int bits, int64_t row, int64_t dim, int64_t group,
                    float scale, float* dst) {
  const uint8_t* bytes = static_cast<const uint8_t*>(block);
  for (int64_t k = 0; k < dim; ++k) {
    dst[k] = bits == 8 ? static_cast<float>(int8_weight_at(static_cast<const int8_t*>(block),
                                                           k, row)) * scale
                       : static_cast<float>(int4_nibble_at(bytes, group, k, row) - 8) *
                             int4_scale_at(bytes, group, k, row);
  }
}

}  // namespace

// embedding.out(Tensor weight, Tensor weight_scales, int weight_bits, int dim,
//               Tensor indices, *, Tensor(a!) out) -> Tensor(a!)
// Rows of a table packed as tailor_quant::linear's weight (exporter/quantize/ops.py): a
// tied embedding reads its output projection's quantized table, stored once. Only the
// looked-up rows are widened; the table is read in place.
Tensor& embedding_out(KernelContext& ctx, const Tensor& weight, const Tensor& weight_scales,
                      int64_t weight_bits, int64_t dim, const Tensor& indices, Tensor& out) {
  // Validate: the shapes the exporter writes (as linear.out checks them).
  const int bits = static_cast<int>(weight_bits);
  TL_KERNEL_CHECK_MSG(ctx, weight_bits == 8 || weight_bits == 4, InvalidArgument, out,
                      "embedding.out: weight_bits %lld is not supported (8 or 4)",
                      static_cast<long long>(weight_bits));
  TL_KERNEL_CHECK(ctx,
                  out.dtype() == ScalarType::Float && weight_scales.dtype() == ScalarType::Float &&
                      weight.dtype() == (bits == 4 ? ScalarType::Byte : ScalarType::Char) &&
                      weight.dim() == 2 && weight_scales.dim() == 2 &&
                      is_default_dim_order(weight) && is_default_dim_order(weight_scales) &&
                      is_default_dim_order(indices) && is_default_dim_order(out),
                  InvalidArgument, out);
  const int64_t n = weight_scales.size(1);
  const int64_t groups = checked_qlinear_groups(ctx, "tailor_quant::embedding.out", bits, dim,
                                                weight, weight_scales);
  if (groups == 0) return out;
  if (!resize_for_lookup(ctx, "tailor_quant::embedding.out", indices, dim, out)) {
    return out;
  }

  // Compute: one dequantized row per index.
  const int64_t block_bytes = weight.size(1);
  const uint8_t* table = static_cast<const uint8_t*>(weight.data());
  const float* scales = weight_scales.const_data<float>();
  float* dst = out.mutable_data<float>();
  for_each_lookup(ctx, "tailor_quant::embedding.out", indices, n, [&](size_t i, int64_t row) {
    const uint8_t* block = table + (row / kQBlock) * block_bytes;
    dequantize_row(block, bits, row % kQBlock, dim, dim / groups,
                   bits == 8 ? scales[row] : 0.0f, dst + i * dim);
  });
  return out;
}

}  // namespace tailor::quantized::native
