#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/upsample.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::upsample_nearest2d_detail {

// The dtypes torch resamples (it has no nearest upsampling for the other integers).
inline constexpr uint32_t kDtypes =
    (1u << int(ScalarType::Byte)) | (1u << int(ScalarType::Half)) |
    (1u << int(ScalarType::BFloat16)) | (1u << int(ScalarType::Float)) |
    (1u << int(ScalarType::Double));

}  // namespace tailor::native::upsample_nearest2d_detail

namespace tailor::native {

// upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors,
//                            *, Tensor(a!) out) -> Tensor(a!)
// Resizes the last two dims of a 4-d input by copying the nearest pixel: output index o
// reads input floor(o * in / out), or floor(o / scale) when scale_factors are given, as
// torch's "nearest" mode (whose results differ between the two).
Tensor& upsample_nearest2d_vec_out(KernelContext& ctx, const Tensor& input,
                                   Optional<IntArrayRef> output_size,
                                   Optional<ArrayRef<double>> scale_factors, Tensor& out) {
  // Validate
  UpsamplePlan plan;
  const char* problem = read_upsample_args(input, output_size, scale_factors, &plan);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, out,
                      "upsample_nearest2d.vec_out: %s", problem);
  TL_KERNEL_CHECK_MSG(ctx, dtype_in_mask(upsample_nearest2d_detail::kDtypes, input.dtype()),
                      InvalidArgument, out,
                      "upsample_nearest2d.vec_out: dtype %s is not supported (Byte, Half, "
                      "BFloat16, Float, Double)", scalar_type_name(input.dtype()));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(input, out), InvalidArgument, out,
                      "upsample_nearest2d.vec_out: out has dtype %s, input %s",
                      scalar_type_name(out.dtype()), scalar_type_name(input.dtype()));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(input) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, plan.sizes()) == Error::Ok, InvalidArgument, out);

  // Copy: elements only move, so one loop per element size serves every dtype.
  TL_SWITCH_ELEMENT_WORD(input.dtype(), ctx, "upsample_nearest2d.vec_out", W, [&] {
    const W* src = static_cast<const W*>(input.data());
    W* dst = static_cast<W*>(out.data());
    for (int64_t p = 0; p < plan.planes; ++p) {
      const W* plane = src + p * plan.in_h * plan.in_w;
      for (int64_t oh = 0; oh < plan.out_h; ++oh) {
        const W* row =
            plane + nearest_source(oh, plan.in_h, plan.out_h, plan.scale_h) * plan.in_w;
        for (int64_t ow = 0; ow < plan.out_w; ++ow) {
          *dst++ = row[nearest_source(ow, plan.in_w, plan.out_w, plan.scale_w)];
        }
      }
    }
  });
  return out;
}

}  // namespace tailor::native
