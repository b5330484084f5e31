#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/upsample.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
//                             float[]? scale_factors, *, Tensor(a!) out) -> Tensor(a!)
// Resizes the last two dims of a 4-d input by bilinear interpolation. Without
// align_corners, pixel centres line up and the step is in / out, or 1 / scale when
// scale_factors are given (as torch); with it, the corner pixels line up. Computes in
// float for 16-bit floats.
Tensor& upsample_bilinear2d_vec_out(KernelContext& ctx, const Tensor& input,
                                    Optional<IntArrayRef> output_size, bool align_corners,
                                    Optional<ArrayRef<double>> scale_factors, Tensor& out) {
  // Validate
  UpsamplePlan plan;
  const char* problem = read_upsample_args(input, output_size, scale_factors, &plan);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, out,
                      "upsample_bilinear2d.vec_out: %s", problem);
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(input, out), InvalidArgument, out,
                      "upsample_bilinear2d.vec_out: out has dtype %s, input %s",
                      scalar_type_name(out.dtype()), scalar_type_name(input.dtype()));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(input) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, plan.sizes()) == Error::Ok, InvalidArgument, out);

  // Compute: blend along W in the two source rows, then between the rows.
  TL_SWITCH_FLOAT_TYPES(input.dtype(), ctx, "upsample_bilinear2d.vec_out", T, [&] {
    using Acc = acc_t<T>;
    const Acc ratio_h = linear_ratio<Acc>(plan.in_h, plan.out_h, align_corners, plan.scale_h);
    const Acc ratio_w = linear_ratio<Acc>(plan.in_w, plan.out_w, align_corners, plan.scale_w);
    const T* src = input.const_data<T>();
    T* dst = out.mutable_data<T>();
    for (int64_t p = 0; p < plan.planes; ++p) {
      const T* plane = src + p * plan.in_h * plan.in_w;
      for (int64_t oh = 0; oh < plan.out_h; ++oh) {
        const LinearTap<Acc> th =
            linear_tap<Acc>(oh, plan.in_h, plan.out_h, align_corners, ratio_h);
        const T* row0 = plane + th.i0 * plan.in_w;
        const T* row1 = plane + th.i1 * plan.in_w;
        for (int64_t ow = 0; ow < plan.out_w; ++ow) {
          const LinearTap<Acc> tw =
              linear_tap<Acc>(ow, plan.in_w, plan.out_w, align_corners, ratio_w);
          const Acc top = tw.l0 * static_cast<Acc>(row0[tw.i0]) +
                          tw.l1 * static_cast<Acc>(row0[tw.i1]);
          const Acc bottom = tw.l0 * static_cast<Acc>(row1[tw.i0]) +
                             tw.l1 * static_cast<Acc>(row1[tw.i1]);
          *dst++ = static_cast<T>(th.l0 * top + th.l1 * bottom);
        }
      }
    }
  });
  return out;
}

}  // namespace tailor::native
