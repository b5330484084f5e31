#include "kernels/portable/util/index.h"
#include "kernels/quantized/util/qlinear.h"
#include "kernels/quantized/util/qlinear_operands.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

// Shared with the portable kernels (kernels/portable/util/index.h).
using ::tailor::native::kMaxDims;

// linear.out(Tensor input, Tensor weight, Tensor weight_scales, Tensor? bias,
//            int weight_bits, bool dynamic_input, *, Tensor(a!) out) -> Tensor(a!)
// The fused dequantize -> linear of quantized Linear layers (exporter/quantize/ops.py):
// out = input @ dequantize(weight)^T + bias, with the input quantized per token first when
// dynamic_input. Weight packed in blocks of 8 rows (util/qlinear_layout.h): 8 bits, Char
// [ceil(N/8), ceil(K/4) * 32] with weight_scales Float [1, N]; 4 bits, Byte [ceil(N/8),
// G * (K / G * 4 + 32)], G groups of a multiple of 32 inputs, each followed by its scales,
// with weight_scales Float [0, N] (it gives N). The product runs in util/qlinear.h.
Tensor& linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                   const Tensor& weight_scales, const Tensor* bias, int64_t weight_bits,
                   bool dynamic_input, Tensor& out) {
  // Validate: the shapes the exporter writes; anything else is a malformed program.
  TL_KERNEL_CHECK_MSG(ctx, weight_bits == 8 || (weight_bits == 4 && dynamic_input),
                      InvalidArgument, out,
                      "linear.out: weight_bits %lld with dynamic_input %d is not supported "
                      "(8, or 4 with dynamic inputs)",
                      static_cast<long long>(weight_bits), dynamic_input ? 1 : 0);
  const int bits = static_cast<int>(weight_bits);
  TL_KERNEL_CHECK(ctx,
                  input.dtype() == ScalarType::Float && same_dtype(input, out) &&
                      weight_scales.dtype() == ScalarType::Float &&
                      weight.dtype() == (bits == 4 ? ScalarType::Byte : ScalarType::Char) &&
                      input.dim() >= 1 && input.dim() <= int64_t(kMaxDims) &&
                      weight.dim() == 2 && weight_scales.dim() == 2 &&
                      is_default_dim_order(input) && is_default_dim_order(weight) &&
                      is_default_dim_order(weight_scales) && is_default_dim_order(out),
                  InvalidArgument, out);
  const int64_t k = input.size(input.dim() - 1);
  const int64_t n = weight_scales.size(1);
  const int64_t groups =
      checked_qlinear_groups(ctx, "tailor_quant::linear.out", bits, k, weight, weight_scales);
  if (groups == 0) return out;
  TL_KERNEL_CHECK_MSG(ctx, qlinear_chunk_rows(k, groups, bits, dynamic_input) >= 1,
                      InvalidArgument, out,
                      "linear.out: %lld inputs per row exceed the kernel's buffer of %lld",
                      static_cast<long long>(k), static_cast<long long>(kQRowBuffer));
  TL_KERNEL_CHECK_MSG(ctx,
                      bias == nullptr || (bias->dtype() == ScalarType::Float &&
                                          static_cast<int64_t>(bias->numel()) == n &&
                                          is_default_dim_order(*bias)),
                      InvalidArgument, out, "linear.out: bias must be Float with %lld elements",
                      static_cast<long long>(n));

  // Resize: the input's shape with its last dim n.
  int64_t sizes[kMaxDims];
  for (int64_t d = 0; d + 1 < input.dim(); ++d) sizes[d] = input.size(d);
  sizes[input.dim() - 1] = n;
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, input.dim())) == Error::Ok,
                  InvalidArgument, out);

  // Compute
  QLinearArgs a;
  a.m = static_cast<int64_t>(input.numel()) / k;
  a.n = n;
  a.k = k;
  a.groups = groups;
  a.weight_bits = static_cast<int>(weight_bits);
  a.dynamic_input = dynamic_input;
  a.x = input.const_data<float>();
  a.w = weight.data();
  a.scales = weight_scales.const_data<float>();
  a.bias = bias != nullptr ? bias->const_data<float>() : nullptr;
  a.out = out.mutable_data<float>();
  TL_KERNEL_CHECK_MSG(ctx, qlinear(ctx, a), MemoryAllocationFailed, out, TL_SCRATCH_TOO_SMALL,
                      "tailor_quant::linear.out");
  return out;
}

}  // namespace tailor::quantized::native
