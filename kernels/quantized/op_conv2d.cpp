#include "kernels/quantized/util/qconv.h"
#include "kernels/quantized/util/qlinear_operands.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

namespace {

// Far above any real window, stride, padding or dilation, and low enough that the
// kernel's products of them cannot overflow.
constexpr int64_t kMaxGeometry = int64_t{1} << 24;

// A pair argument (kernel_size, stride, padding, dilation) of two values in [low, kMaxGeometry].
bool pair_in_range(IntArrayRef v, int64_t low) {
  return v.size() == 2 && v[0] >= low && v[1] >= low && v[0] <= kMaxGeometry &&
         v[1] <= kMaxGeometry;
}

}  // namespace

// conv2d.out(Tensor input, Tensor weight, Tensor weight_scales, Tensor? bias,
//            int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation,
//            float? output_min=None, float? output_max=None, *, Tensor(a!) out) -> Tensor(a!)
// A dense (one group) convolution of 8da8w programs (exporter/quantize/ops.py): each image
// quantized to int8 as one token, int8 weights per output channel packed as
// tailor_quant::linear's over each receptive field (kernel rows, kernel columns, channels
// padded to a multiple of 4), the product in int32 (util/qconv.h), the outputs clamped to
// the bounds given (a relu or relu6 the exporter fused, exporter/passes/activation_fusion.py).
Tensor& conv2d_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                   const Tensor& weight_scales, const Tensor* bias, IntArrayRef kernel_size,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                   Optional<double> output_min, Optional<double> output_max, Tensor& out) {
  // Validate: the shapes the exporter writes; anything else is a malformed program.
  TL_KERNEL_CHECK(ctx,
                  input.dtype() == ScalarType::Float && same_dtype(input, out) &&
                      weight.dtype() == ScalarType::Char &&
                      weight_scales.dtype() == ScalarType::Float && input.dim() == 4 &&
                      weight.dim() == 2 && weight_scales.dim() == 2 &&
                      weight_scales.size(0) == 1 && is_default_dim_order(input) &&
                      is_default_dim_order(weight) && is_default_dim_order(weight_scales) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);
  TL_KERNEL_CHECK_MSG(ctx,
                      pair_in_range(kernel_size, 1) && pair_in_range(stride, 1) &&
                          pair_in_range(padding, 0) && pair_in_range(dilation, 1),
                      InvalidArgument, out,
                      "conv2d.out: kernel_size, stride and dilation must be two values >= 1, "
                      "padding two values >= 0, all at most 2^24");
  QConvShape s;
  s.batch = input.size(0);
  s.channels = input.size(1);
  s.height = input.size(2);
  s.width = input.size(3);
  s.out_channels = weight_scales.size(1);
  s.kh = kernel_size[0];
  s.kw = kernel_size[1];
  s.sh = stride[0];
  s.sw = stride[1];
  s.ph = padding[0];
  s.pw = padding[1];
  s.dh = dilation[0];
  s.dw = dilation[1];
  const int64_t span_h = s.height + 2 * s.ph - s.rows_per_output_row();
  const int64_t span_w = s.width + 2 * s.pw - ((s.kw - 1) * s.dw + 1);
  TL_KERNEL_CHECK_MSG(ctx, s.channels >= 1 && span_h >= 0 && span_w >= 0, InvalidArgument, out,
                      "conv2d.out: a %lldx%lld input with %lld channels is smaller than the "
                      "dilated kernel",
                      static_cast<long long>(s.height), static_cast<long long>(s.width),
                      static_cast<long long>(s.channels));
  s.out_height = span_h / s.sh + 1;
  s.out_width = span_w / s.sw + 1;
  if (checked_qlinear_groups(ctx, "tailor_quant::conv2d.out", 8, s.patch(), weight,
                             weight_scales) != 1) {
    return out;
  }
  TL_KERNEL_CHECK_MSG(ctx, qconv_fits(s), InvalidArgument, out,
                      "conv2d.out: %lld channels of %lld columns, a %lldx%lld kernel, exceed "
                      "the kernel's buffers (kQConvBandBytes, kQConvRowBytes)",
                      static_cast<long long>(s.channels), static_cast<long long>(s.width),
                      static_cast<long long>(s.kh), static_cast<long long>(s.kw));
  TL_KERNEL_CHECK_MSG(ctx,
                      bias == nullptr || (bias->dtype() == ScalarType::Float &&
                                          static_cast<int64_t>(bias->numel()) == s.out_channels &&
                                          is_default_dim_order(*bias)),
                      InvalidArgument, out, "conv2d.out: bias must be Float with %lld elements",
                      static_cast<long long>(s.out_channels));

  // Resize
  const int64_t sizes[4] = {s.batch, s.out_channels, s.out_height, s.out_width};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, 4)) == Error::Ok, InvalidArgument,
                  out);

  // Compute
  if (out.numel() == 0) return out;
  const float low = output_min ? static_cast<float>(output_min.value()) : -__builtin_inff();
  const float high = output_max ? static_cast<float>(output_max.value()) : __builtin_inff();
  TL_KERNEL_CHECK_MSG(ctx,
                      qconv2d(ctx, s, input.const_data<float>(), weight.const_data<int8_t>(),
                              weight_scales.const_data<float>(),
                              bias != nullptr ? bias->const_data<float>() : nullptr,
                              out.mutable_data<float>(), low, high),
                      MemoryAllocationFailed, out, TL_SCRATCH_TOO_SMALL,
                      "tailor_quant::conv2d.out");
  return out;
}

}  // namespace tailor::quantized::native
