#include "kernels/quantized/util/embedding_lookup.h"
#include "kernels/quantized/util/qlinear.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

namespace {

// Row `row` (0..7) of one packed block (util/qlinear_layout.h), dequantized into
// dst[0..dim); its scale for input k is scales[(k / group) * n].
void dequantize_row(const void* block, int bits, int64_t row, int64_t dim, int64_t group,
                    int64_t n, const float* scales, float* dst) {
  for (int64_t k = 0; k < dim; ++k) {
    const int32_t q = bits == 8 ? int8_weight_at(static_cast<const int8_t*>(block), k, row)
                                : int4_nibble_at(static_cast<const uint8_t*>(block), k, row) - 8;
    dst[k] = static_cast<float>(q) * scales[(k / group) * n];
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
  const int64_t groups = weight_scales.size(0);
  TL_KERNEL_CHECK_MSG(ctx,
                      qlinear_layout_fits(dim, n, groups, bits, weight.size(0), weight.size(1)),
                      InvalidArgument, out,
                      "embedding.out: dim %lld, weight [%lld, %lld] and scales [%lld, %lld] "
                      "do not fit together",
                      static_cast<long long>(dim), static_cast<long long>(weight.size(0)),
                      static_cast<long long>(weight.size(1)), static_cast<long long>(groups),
                      static_cast<long long>(n));
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
    dequantize_row(block, bits, row % kQBlock, dim, dim / groups, n, scales + row,
                   dst + i * dim);
  });
  return out;
}

}  // namespace tailor::quantized::native
