// The check of a packed quantized table's operands (weight and weight_scales, as
// exporter/quantize/weights.py writes them), shared by tailor_quant::linear.out and the
// tailor_quant::embedding.out that reads a tied linear's table.
#pragma once

#include "kernels/quantized/util/qlinear.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

// The groups of scales per row of a table of n rows of k values at `bits` (weight: 2-D
// Byte or Char, weight_scales: 2-D Float, dtypes and ranks checked by the caller), or 0
// with ctx failed and the reason logged under `op`'s name. 4-bit scales lie in the weight
// blocks and weight_scales is [0, N]; a program whose 4-bit scales are [G, N] apart was
// packed before that layout, and only re-exporting it helps.
inline int64_t checked_qlinear_groups(KernelContext& ctx, const char* op, int bits, int64_t k,
                                      const Tensor& weight, const Tensor& weight_scales) {
  const auto ll = [](int64_t v) { return static_cast<long long>(v); };
  TL_KERNEL_CHECK_MSG(ctx, bits == 8 || weight_scales.size(0) == 0, InvalidArgument, 0,
                      "%s: 4-bit weight_scales [%lld, %lld] are stored apart from the "
                      "weights, the layout before scales moved into the weight blocks; "
                      "re-export the program with this version (weight_scales [0, N])",
                      op, ll(weight_scales.size(0)), ll(weight_scales.size(1)));
  const int64_t groups =
      bits == 4 ? qlinear_int4_groups(k, weight.size(1)) : weight_scales.size(0);
  TL_KERNEL_CHECK_MSG(ctx,
                      qlinear_layout_fits(k, weight_scales.size(1), groups, bits,
                                          weight.size(0), weight.size(1)),
                      InvalidArgument, 0,
                      "%s: %lld inputs per row, weight [%lld, %lld] and weight_scales "
                      "[%lld, %lld] do not fit together at %d bits",
                      op, ll(k), ll(weight.size(0)), ll(weight.size(1)),
                      ll(weight_scales.size(0)), ll(weight_scales.size(1)), bits);
  return groups;
}

}  // namespace tailor::quantized::native
