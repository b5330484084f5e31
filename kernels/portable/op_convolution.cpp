#include "kernels/portable/util/conv.h"
#include "kernels/portable/util/conv_check.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//                 SymInt[] padding, SymInt[] dilation, bool transposed,
//                 SymInt[] output_padding, SymInt groups, *, Tensor(a!) out) -> Tensor(a!)
// 1-D (input [N, C, L]), 2-D ([N, C, H, W]) and 3-D ([N, C, D, H, W]) convolution with
// groups. The weight
// is [C_out, C_in / groups, k...], or when transposed [C_in, C_out / groups, k...];
// output_padding only lengthens a transposed convolution's output.
Tensor& convolution_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                        const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                        IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                        int64_t groups, Tensor& out) {
  // Validate and resize
  ConvShape s;
  if (!check_convolution_out(ctx, input, weight, bias, stride, padding, dilation, transposed,
                             output_padding, groups, out, &s)) {
    return out;
  }

  // Compute
  if (out.numel() == 0) {
    return out;
  }
  TL_SWITCH_FLOAT_TYPES(input.dtype(), ctx, "convolution.out", T, [&] {
    const T* x = input.const_data<T>();
    const T* w = weight.const_data<T>();
    const T* b = bias != nullptr ? bias->const_data<T>() : nullptr;
    T* y = out.mutable_data<T>();
    if (transposed) {
      conv_transposed_direct(s, x, w, b, y);
    } else if (!conv_gemm_fits<T>(s) || !conv_gemm(ctx.scratch(), s, x, w, b, y)) {
      conv_direct(s, x, w, b, y);
    }
  });
  return out;
}

}  // namespace tailor::native
