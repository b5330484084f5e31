// Shared validation of convolution.out (portable, and optimized's Float kernel).
#pragma once

#include "kernels/portable/util/conv.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {
namespace convolution_detail {

// Larger sizes, steps and paddings are refused, so index arithmetic stays in int64.
constexpr int64_t kMaxParam = int64_t(1) << 30;

// The value of a per-dimension parameter for spatial dim d: torch takes one value for
// every dim, or one per dim.
inline int64_t param_at(IntArrayRef p, size_t d) {
  return p.size() == 1 ? p[0] : p[d];
}

}  // namespace convolution_detail

// Validates a convolution.out call (1-D, 2-D or 3-D, groups, transposed), writes its geometry
// to *shape and resizes out; false after ctx.fail() otherwise.
inline bool check_convolution_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                                  const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef dilation, bool transposed,
                                  IntArrayRef output_padding, int64_t groups, Tensor& out,
                                  ConvShape* shape) {
  using convolution_detail::kMaxParam;
  using convolution_detail::param_at;
  // Validate: ranks, dtypes and layouts.
  const int64_t rank = input.dim();
  TL_KERNEL_CHECK_MSG(ctx, rank >= 3 && rank <= 5, InvalidArgument, false,
                      "convolution.out: input must be 3-d (1-D), 4-d (2-D) or 5-d (3-D), got "
                      "%lld dims",
                      static_cast<long long>(rank));
  TL_KERNEL_CHECK_MSG(ctx, weight.dim() == rank, InvalidArgument, false,
                      "convolution.out: weight has %lld dims for a %lld-d input",
                      static_cast<long long>(weight.dim()), static_cast<long long>(rank));
  const size_t spatial = static_cast<size_t>(rank - 2);
  auto list_ok = [spatial](IntArrayRef p) { return p.size() == 1 || p.size() == spatial; };
  TL_KERNEL_CHECK_MSG(ctx,
                      list_ok(stride) && list_ok(padding) && list_ok(dilation) &&
                          list_ok(output_padding),
                      InvalidArgument, false,
                      "convolution.out: stride, padding, dilation and output_padding need 1 "
                      "or %zu values each", spatial);
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(input, weight) && same_dtype(input, out),
                      InvalidArgument, false,
                      "convolution.out: input, weight and out must have one dtype");
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(input) && is_default_dim_order(weight) &&
                      is_default_dim_order(out),
                  InvalidArgument, false);

  // Channels and groups.
  TL_KERNEL_CHECK_MSG(ctx, groups >= 1 && groups <= kMaxParam, InvalidArgument, false,
                      "convolution.out: groups must be positive, got %lld",
                      static_cast<long long>(groups));
  ConvShape& s = *shape;
  s = ConvShape{};
  s.groups = groups;
  s.batch = input.size(0);
  s.in_channels = input.size(1);
  s.out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  TL_KERNEL_CHECK_MSG(ctx, s.in_channels > 0 && s.in_channels % groups == 0 &&
                               s.out_channels > 0 && s.out_channels % groups == 0,
                      InvalidArgument, false,
                      "convolution.out: %lld input and %lld output channels must be positive "
                      "and divisible by groups = %lld",
                      static_cast<long long>(s.in_channels),
                      static_cast<long long>(s.out_channels), static_cast<long long>(groups));
  const bool channels_match = transposed ? weight.size(0) == s.in_channels
                                         : weight.size(1) == s.in_channels / groups;
  TL_KERNEL_CHECK_MSG(ctx, channels_match, InvalidArgument, false,
                      "convolution.out: weight [%lld, %lld, ...] does not fit %lld input "
                      "channels in %lld groups%s",
                      static_cast<long long>(weight.size(0)),
                      static_cast<long long>(weight.size(1)),
                      static_cast<long long>(s.in_channels), static_cast<long long>(groups),
                      transposed ? " (transposed: [C_in, C_out / groups, ...])" : "");
  TL_KERNEL_CHECK_MSG(ctx,
                      bias == nullptr || (same_dtype(*bias, input) && bias->dim() == 1 &&
                                          bias->size(0) == s.out_channels),
                      InvalidArgument, false,
                      "convolution.out: bias must be 1-d with %lld entries of the input's "
                      "dtype", static_cast<long long>(s.out_channels));

  // Spatial dims, from the last: width, height, depth; a 1-D convolution keeps height 1,
  // 1-D and 2-D ones depth 1.
  int64_t out_sizes[5] = {s.batch, s.out_channels, 0, 0, 0};
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t in_size = input.size(2 + d);
    const int64_t k = weight.size(2 + d);
    const int64_t st = param_at(stride, d);
    const int64_t pad = param_at(padding, d);
    const int64_t dil = param_at(dilation, d);
    const int64_t out_pad = transposed ? param_at(output_padding, d) : 0;
    TL_KERNEL_CHECK_MSG(ctx,
                        st >= 1 && st <= kMaxParam && dil >= 1 && dil <= kMaxParam &&
                            pad >= 0 && pad <= kMaxParam && out_pad >= 0,
                        InvalidArgument, false,
                        "convolution.out: dim %zu has stride %lld, padding %lld, dilation "
                        "%lld (stride and dilation must be positive, padding non-negative)",
                        d, static_cast<long long>(st), static_cast<long long>(pad),
                        static_cast<long long>(dil));
    TL_KERNEL_CHECK_MSG(ctx, in_size > 0 && k > 0, InvalidArgument, false,
                        "convolution.out: dim %zu has input size %lld and kernel size %lld; "
                        "both must be positive", d, static_cast<long long>(in_size),
                        static_cast<long long>(k));
    TL_KERNEL_CHECK_MSG(ctx, !transposed || out_pad < st || out_pad < dil, InvalidArgument,
                        false,
                        "convolution.out: output_padding %lld in dim %zu must be smaller than "
                        "the stride or the dilation", static_cast<long long>(out_pad), d);
    const int64_t span = dil * (k - 1) + 1;  // the dilated kernel's extent
    const int64_t size = transposed ? (in_size - 1) * st - 2 * pad + span + out_pad
                                    : (in_size + 2 * pad - span) / st + 1;
    TL_KERNEL_CHECK_MSG(ctx, transposed ? size > 0 : in_size + 2 * pad >= span,
                        InvalidArgument, false,
                        "convolution.out: dim %zu: input size %lld, padding %lld and dilated "
                        "kernel %lld give no output", d, static_cast<long long>(in_size),
                        static_cast<long long>(pad), static_cast<long long>(span));
    out_sizes[2 + d] = size;
    const size_t from_last = spatial - 1 - d;  // 0: width, 1: height, 2: depth
    int64_t* fields[3][6] = {
        {&s.in_w, &s.out_w, &s.kernel_w, &s.stride_w, &s.pad_w, &s.dilation_w},
        {&s.in_h, &s.out_h, &s.kernel_h, &s.stride_h, &s.pad_h, &s.dilation_h},
        {&s.in_d, &s.out_d, &s.kernel_d, &s.stride_d, &s.pad_d, &s.dilation_d}};
    const int64_t values[6] = {in_size, size, k, st, pad, dil};
    for (size_t f = 0; f < 6; ++f) {
      *fields[from_last][f] = values[f];
    }
  }

  // Resize
  TL_KERNEL_CHECK_MSG(ctx, resize_tensor(out, IntArrayRef(out_sizes, rank)) == Error::Ok,
                      InvalidArgument, false,
                      "convolution.out: out cannot take the output's size");
  return true;
}

}  // namespace tailor::native
