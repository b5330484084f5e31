#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

// Shared with the portable kernels (kernels/portable/util/index.h).
using ::tailor::native::index_value;
using ::tailor::native::is_index_dtype;
using ::tailor::native::normalize_dim;

// dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis,
//                            int quant_min, int quant_max, ScalarType dtype, *,
//                            ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)
// out[..., c, ...] = (input[..., c, ...] - zero_points[c]) * scales[c] along `axis`, in
// float32 (zero points Int or Long, scales Float).
Tensor& dequantize_per_channel_out(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                                   const Tensor* zero_points, int64_t axis, int64_t quant_min,
                                   int64_t quant_max, ScalarType dtype,
                                   Optional<ScalarType> out_dtype, Tensor& out) {
  // Validate
  int64_t dim = 0;
  TL_KERNEL_CHECK_MSG(ctx, normalize_dim(axis, input.dim(), &dim) && input.dim() > 0,
                      InvalidArgument, out, "dequantize_per_channel.out: axis %lld out of range",
                      static_cast<long long>(axis));
  const int64_t channels = input.size(dim);
  TL_KERNEL_CHECK_MSG(
      ctx,
      input.dtype() == dtype && out.dtype() == ScalarType::Float &&
          (!out_dtype.has_value() || out_dtype.value() == ScalarType::Float) &&
          scales.dtype() == ScalarType::Float &&
          static_cast<int64_t>(scales.numel()) == channels &&
          (zero_points == nullptr || (is_index_dtype(zero_points->dtype()) &&
                                      static_cast<int64_t>(zero_points->numel()) == channels)),
      InvalidArgument, out,
      "dequantize_per_channel.out: input must have dtype %s, scales Float and zero points "
      "Int or Long with %lld elements, out Float",
      scalar_type_name(dtype), static_cast<long long>(channels));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(input) && is_default_dim_order(out), InvalidArgument,
                  out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_like(out, input) == Error::Ok, InvalidArgument, out);

  // Compute: the channel of element i is (i / inner) % channels.
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < input.dim(); ++d) inner *= input.size(d);
  const float* s = scales.const_data<float>();
  float* dst = out.mutable_data<float>();
  TL_SWITCH_INT_TYPES(dtype, ctx, "quantized_decomposed::dequantize_per_channel.out", T, [&] {
    const T* in = input.const_data<T>();
    for (size_t i = 0; i < input.numel(); ++i) {
      const int64_t c = (static_cast<int64_t>(i) / inner) % channels;
      const float zero =
          zero_points != nullptr ? static_cast<float>(index_value(*zero_points, c)) : 0.0f;
      dst[i] = (static_cast<float>(in[i]) - zero) * s[c];
    }
  });
  return out;
}

}  // namespace tailor::quantized::native
