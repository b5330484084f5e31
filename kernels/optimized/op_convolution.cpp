#include "kernels/optimized/util/conv_depthwise.h"
#include "kernels/optimized/util/conv_gemm.h"
#include "kernels/optimized/util/conv_winograd.h"
#include "kernels/portable/util/conv_check.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// The manifest declares one scratch_bytes for every path: the largest, Winograd's.
static_assert(kConvGemmScratchBytes <= kConvWinogradScratchBytes &&
                  kConvDepthwiseScratchBytes <= kConvWinogradScratchBytes,
              "convolution's scratch_bytes (manifests/kernels/optimized.yaml) covers im2col "
              "and the depthwise padded planes");

// The prepack hook (manifests/kernels/optimized.yaml's prepack:): a constant weight of a
// call that takes the Winograd path at its planned sizes is transformed once at load.
// The shape comes from the program, not yet checked against the other arguments: any
// call not plainly a 2-D, stride-1, 3x3 one that winograd_fits() packs nothing, and the
// kernel still checks the copy against the call it runs.
static bool winograd_call_shape(const PrepackCall& call, tailor::native::ConvShape* s) {
  PrepackTensor input, weight;
  int64_t stride[2], padding[2], dilation[2], transposed = 1, groups = 0;
  if (!call.tensor(0, &input) || !call.tensor(1, &weight) || input.dim != 4 ||
      weight.dim != 4 || input.dtype != ScalarType::Float || weight.dtype != ScalarType::Float ||
      !input.contiguous || !weight.contiguous || call.int_list(3, stride, 2) != 2 ||
      call.int_list(4, padding, 2) != 2 || call.int_list(5, dilation, 2) != 2 ||
      !call.integer(6, &transposed) || transposed != 0 || !call.integer(8, &groups)) {
    return false;
  }
  // Bounds that keep every product below in int64_t and size_t.
  constexpr int64_t kMax = 1 << 16;
  for (size_t d = 0; d < 4; ++d) {
    if (input.sizes[d] <= 0 || input.sizes[d] > kMax || weight.sizes[d] <= 0 ||
        weight.sizes[d] > kMax) {
      return false;
    }
  }
  if (padding[0] < 0 || padding[1] < 0 || padding[0] > kMax || padding[1] > kMax ||
      weight.sizes[1] != input.sizes[1]) {
    return false;
  }
  *s = tailor::native::ConvShape{};
  s->batch = input.sizes[0];
  s->in_channels = input.sizes[1];
  s->in_h = input.sizes[2];
  s->in_w = input.sizes[3];
  s->out_channels = weight.sizes[0];
  s->kernel_h = weight.sizes[2];
  s->kernel_w = weight.sizes[3];
  s->stride_h = stride[0];
  s->stride_w = stride[1];
  s->pad_h = padding[0];
  s->pad_w = padding[1];
  s->dilation_h = dilation[0];
  s->dilation_w = dilation[1];
  s->groups = groups;
  s->out_h = s->in_h + 2 * s->pad_h - s->kernel_h + 1;  // stride and dilation 1, as
  s->out_w = s->in_w + 2 * s->pad_w - s->kernel_w + 1;  // winograd_fits() requires
  return s->out_h > 0 && s->out_w > 0 && winograd_fits(*s, true);
}

static size_t winograd_prepack_bytes(const PrepackCall& call) {
  tailor::native::ConvShape s;
  return winograd_call_shape(call, &s) ? winograd_packed_u_bytes(s) : 0;
}

static void winograd_prepack(const PrepackCall& call, const void* weight, void* packed,
                             size_t) {
  tailor::native::ConvShape s;
  winograd_call_shape(call, &s);  // bytes() said it fits
  winograd_pack_u(s, static_cast<const float*>(weight), packed);
}

extern const KernelPrepack kConvolutionPrepack{1, &winograd_prepack_bytes, &winograd_prepack};

// Below this many output channels per group a gathered patch serves too few rows of the
// product to pay for gathering it: direct loops (depthwise ones: their own vector loops).
inline constexpr int64_t kConvGemmMinRows = 4;

// convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//                 SymInt[] padding, SymInt[] dilation, bool transposed,
//                 SymInt[] output_padding, SymInt groups, *, Tensor(a!) out) -> Tensor(a!)
// Float only (the other dtypes go to portable): 1-D and 2-D, groups, as im2col and the
// optimized GEMM (util/conv_gemm.h); 3x3 ones of stride 1 that winograd_fits() (32 to
// 256 input channels, or up to 512 with filters packed at load) by Winograd's F(2x2, 3x3)
// or, for large outputs, F(4x4, 3x3) (util/conv_winograd.h);
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
  const WinogradPacked packed = winograd_packed_u(ctx.packed(), s, w);  // none: u nullptr
  if (transposed) {
    tailor::native::conv_transposed_direct(s, x, w, b, y);
  } else if (s.volumetric()) {  // no key of its manifest sends one: portable's loop
    tailor::native::conv_direct(s, x, w, b, y);
  } else if (s.in_per_group() == 1) {
    TL_KERNEL_CHECK_MSG(ctx, conv_depthwise_float(ctx, s, x, w, b, y), MemoryAllocationFailed,
                        out, TL_SCRATCH_TOO_SMALL, "convolution.out");
  } else if (s.out_per_group() < kConvGemmMinRows) {
    tailor::native::conv_direct(s, x, w, b, y);
  } else if (winograd_fits(s, packed.u != nullptr)) {
    TL_KERNEL_CHECK_MSG(ctx, conv_winograd_float(ctx, s, x, w, b, y, packed),
                        MemoryAllocationFailed, out, TL_SCRATCH_TOO_SMALL, "convolution.out");
  } else {
    TL_KERNEL_CHECK_MSG(ctx, conv_gemm_float(ctx, s, x, w, b, y), MemoryAllocationFailed, out,
                        TL_SCRATCH_TOO_SMALL, "convolution.out");
  }
  return out;
}

}  // namespace tailor::optimized::native
