#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

// quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//                         int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)
// out = clamp(round(input * (1 / scale)) + zero_point, quant_min, quant_max), in float32
// steps as torch's quantized_decomposed reference (round half to even).
Tensor& quantize_per_tensor_out(KernelContext& ctx, const Tensor& input, double scale,
                                int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                ScalarType dtype, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx,
                      input.dtype() == ScalarType::Float && out.dtype() == dtype &&
                          quant_min <= quant_max && scale > 0.0,
                      InvalidArgument, out,
                      "quantize_per_tensor.out: needs a Float input, out of dtype %s, "
                      "quant_min <= quant_max and a positive scale",
                      scalar_type_name(dtype));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(input) && is_default_dim_order(out), InvalidArgument,
                  out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_like(out, input) == Error::Ok, InvalidArgument, out);

  // Compute
  const float inverse = static_cast<float>(1.0 / scale);
  const float zero = static_cast<float>(zero_point);
  const float lo = static_cast<float>(quant_min);
  const float hi = static_cast<float>(quant_max);
  const float* in = input.const_data<float>();
  TL_SWITCH_INT_TYPES(dtype, ctx, "quantized_decomposed::quantize_per_tensor.out", T, [&] {
    T* dst = out.mutable_data<T>();
    for (size_t i = 0; i < input.numel(); ++i) {
      float q = __builtin_nearbyintf(in[i] * inverse) + zero;
      q = q < lo ? lo : (q > hi ? hi : q);
      dst[i] = static_cast<T>(q);
    }
  });
  return out;
}

}  // namespace tailor::quantized::native
