#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

// dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//                           int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
//                           Tensor(a!) out) -> Tensor(a!)
// out = (float(input) - zero_point) * scale, in float32 as torch's reference.
Tensor& dequantize_per_tensor_out(KernelContext& ctx, const Tensor& input, double scale,
                                  int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                  ScalarType dtype, Optional<ScalarType> out_dtype,
                                  Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx,
                      input.dtype() == dtype && out.dtype() == ScalarType::Float &&
                          (!out_dtype.has_value() || out_dtype.value() == ScalarType::Float),
                      InvalidArgument, out,
                      "dequantize_per_tensor.out: input must have dtype %s and out Float",
                      scalar_type_name(dtype));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(input) && is_default_dim_order(out), InvalidArgument,
                  out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_like(out, input) == Error::Ok, InvalidArgument, out);

  // Compute
  const float s = static_cast<float>(scale);
  const float zero = static_cast<float>(zero_point);
  float* dst = out.mutable_data<float>();
  TL_SWITCH_INT_TYPES(dtype, ctx, "quantized_decomposed::dequantize_per_tensor.out", T, [&] {
    const T* in = input.const_data<T>();
    for (size_t i = 0; i < input.numel(); ++i) {
      dst[i] = (static_cast<float>(in[i]) - zero) * s;
    }
  });
  return out;
}

}  // namespace tailor::quantized::native
