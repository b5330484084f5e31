#include "kernels/optimized/util/conv_depthwise.h"
#include "kernels/optimized/util/conv_gemm.h"
#include "kernels/optimized/util/conv_winograd.h"
#include "kernels/portable/util/conv_check.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// The manifest declares one scratch_bytes for both paths: the larger, Winograd's.
static_assert(kConvGemmScratchBytes <= kConvWinogradScratchBytes,
              "convolution's scratch_bytes (manifests/kernels/optimized.yaml) covers im2col");

// Below this many output channels per group a gathered patch serves too few rows of the
// product to pay for gathering it: direct loops (depthwise ones: their own vector loops).
inline constexpr int64_t kConvGemmMinRows = 4;

// convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//                 SymInt[] padding, SymInt[] dilation, bool transposed,
//                 SymInt[] output_padding, SymInt groups, *, Tensor(a!) out) -> Tensor(a!)
// Float only (the other dtypes go to portable): 1-D and 2-D, groups, as im2col and the
// optimized GEMM (util/conv_gemm.h); 3x3 ones of stride 1 with 32 to 256 input channels
// and 32 or more output channels by Winograd's F(2x2, 3x3) (util/conv_winograd.h);
// depthwise ones (one input channel a group) by vectors along the output rows
// (util/conv_depthwise.h); other narrow groups and transposed convolutions by portable's
// direct loops.
Tensor& convolution_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                        const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                        IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                        int64_t groups, Tensor& out) {
  // Validate and resize
  tailor::native::ConvShape s;
  if (!tailor::native::check_convolution_out(ctx, input, weight, bias, stride, padding,
                                             dilation, transposed, output_padding, groups, out,
                                             &s)) {
    return out;
  }
  TL_KERNEL_CHECK(ctx, input.dtype() == ScalarType::Float, InvalidArgument, out);

  // Compute
  if (out.numel() == 0) {
    return out;
  }
  const float* x = input.const_data<float>();
  const float* w = weight.const_data<float>();
  const float* b = bias != nullptr ? bias->const_data<float>() : nullptr;
  float* y = out.mutable_data<float>();
  if (transposed) {
    tailor::native::conv_transposed_direct(s, x, w, b, y);
  } else if (s.volumetric()) {  // no key of its manifest sends one: portable's loop
    tailor::native::conv_direct(s, x, w, b, y);
  } else if (s.in_per_group() == 1) {
    conv_depthwise_float(ctx, s, x, w, b, y);
  } else if (s.out_per_group() < kConvGemmMinRows) {
    tailor::native::conv_direct(s, x, w, b, y);
  } else if (winograd_fits(s)) {
    TL_KERNEL_CHECK_MSG(ctx, conv_winograd_float(ctx, s, x, w, b, y), MemoryAllocationFailed,
                        out, TL_SCRATCH_TOO_SMALL, "convolution.out");
  } else {
    TL_KERNEL_CHECK_MSG(ctx, conv_gemm_float(ctx, s, x, w, b, y), MemoryAllocationFailed, out,
                        TL_SCRATCH_TOO_SMALL, "convolution.out");
  }
  return out;
}

}  // namespace tailor::optimized::native
