#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

// choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float eps,
//                           ScalarType dtype, *, Tensor(a!) scale_out,
//                           Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))
// Per-tensor affine parameters as torch's determine_qparams, in float32:
//   lo = min(min(input), 0), hi = max(max(input), 0)
//   scale = max((hi - lo) / (quant_max - quant_min), eps)
//   zero_point = clamp(quant_min - round(lo / scale), quant_min, quant_max)
// scale_out: Double [1]; zero_point_out: Long [1].
void choose_qparams_tensor_out(KernelContext& ctx, const Tensor& input, int64_t quant_min,
                               int64_t quant_max, double eps, ScalarType dtype,
                               Tensor& scale_out, Tensor& zero_point_out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx,
                      input.dtype() == ScalarType::Float && quant_min < quant_max &&
                          scale_out.dtype() == ScalarType::Double &&
                          zero_point_out.dtype() == ScalarType::Long,
                      InvalidArgument, ,
                      "choose_qparams.Tensor_out: needs a Float input, quant_min < quant_max, "
                      "a Double scale_out and a Long zero_point_out");
  TL_KERNEL_CHECK(ctx, is_default_dim_order(input), InvalidArgument, );

  // Resize
  const int64_t one[1] = {1};
  TL_KERNEL_CHECK(ctx,
                  resize_tensor(scale_out, IntArrayRef(one, 1)) == Error::Ok &&
                      resize_tensor(zero_point_out, IntArrayRef(one, 1)) == Error::Ok,
                  InvalidArgument, );

  // Compute: an empty input has no range; torch then gives scale 1, zero point 0.
  const float* in = input.const_data<float>();
  double scale = 1.0;
  int64_t zero_point = 0;
  if (input.numel() > 0) {
    float lo = 0.0f;
    float hi = 0.0f;
    for (size_t i = 0; i < input.numel(); ++i) {
      lo = in[i] < lo ? in[i] : lo;
      hi = in[i] > hi ? in[i] : hi;
    }
    float s = (hi - lo) / static_cast<float>(quant_max - quant_min);
    const float e = static_cast<float>(eps);
    s = s > e ? s : e;
    int64_t z = quant_min - static_cast<int64_t>(__builtin_nearbyintf(lo / s));
    z = z < quant_min ? quant_min : (z > quant_max ? quant_max : z);
    scale = s;
    zero_point = z;
  }
  scale_out.mutable_data<double>()[0] = scale;
  zero_point_out.mutable_data<int64_t>()[0] = zero_point;
}

}  // namespace tailor::quantized::native
