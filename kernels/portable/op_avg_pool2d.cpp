#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/pool.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//                bool ceil_mode=False, bool count_include_pad=True,
//                int? divisor_override=None, *, Tensor(a!) out) -> Tensor(a!)
// The mean of each window of a 3-d or 4-d input. The divisor is divisor_override if
// given, else the window's size clipped to the padded input (count_include_pad) or to
// the input alone. Sums in float for 16-bit floats.
Tensor& avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                       IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                       bool count_include_pad, Optional<int64_t> divisor_override,
                       Tensor& out) {
  // Validate
  PoolPlanes in;
  const char* problem = read_pool_input(self, false, &in);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, out, "avg_pool2d.out: %s",
                      problem);
  const int64_t no_dilation[1] = {1};
  PoolWindow w;
  problem = read_pool_window(in, kernel_size, stride, padding, IntArrayRef(no_dilation, 1),
                             ceil_mode, &w);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, out, "avg_pool2d.out: %s",
                      problem);
  TL_KERNEL_CHECK_MSG(ctx, !divisor_override.has_value() || divisor_override.value() != 0,
                      InvalidArgument, out, "avg_pool2d.out: divisor_override must not be 0");
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out), InvalidArgument, out,
                      "avg_pool2d.out: out has dtype %s, self %s", scalar_type_name(out.dtype()),
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, in.set_out(self, w.out_h, w.out_w)) == Error::Ok,
                  InvalidArgument, out);

  // Compute
  TL_SWITCH_FLOAT_TYPES(self.dtype(), ctx, "avg_pool2d.out", T, [&] {
    using Acc = acc_t<T>;
    const int64_t in_h = in.in_h;
    const int64_t in_w = in.in_w;
    const int64_t plane_out = w.out_h * w.out_w;
    for (int64_t p = 0; p < in.planes; ++p) {
      const T* src = self.const_data<T>() + p * in_h * in_w;
      T* dst = out.mutable_data<T>() + p * plane_out;
      for (int64_t oh = 0; oh < w.out_h; ++oh) {
        // The window's rows within the padded input, then within the input.
        const int64_t ph0 = oh * w.stride_h - w.pad_h;
        const int64_t ph1 = ph0 + w.kernel_h < in_h + w.pad_h ? ph0 + w.kernel_h
                                                              : in_h + w.pad_h;
        const int64_t h0 = ph0 > 0 ? ph0 : 0;
        const int64_t h1 = ph1 < in_h ? ph1 : in_h;
        for (int64_t ow = 0; ow < w.out_w; ++ow) {
          const int64_t pw0 = ow * w.stride_w - w.pad_w;
          const int64_t pw1 = pw0 + w.kernel_w < in_w + w.pad_w ? pw0 + w.kernel_w
                                                                : in_w + w.pad_w;
          const int64_t w0 = pw0 > 0 ? pw0 : 0;
          const int64_t w1 = pw1 < in_w ? pw1 : in_w;
          T* cell = dst + oh * w.out_w + ow;
          if (h0 >= h1 || w0 >= w1) {
            *cell = static_cast<T>(Acc(0));
            continue;
          }
          Acc sum = 0;
          for (int64_t h = h0; h < h1; ++h) {
            const T* row = src + h * in_w;
            for (int64_t x = w0; x < w1; ++x) {
              sum += static_cast<Acc>(row[x]);
            }
          }
          const int64_t divisor = divisor_override.has_value() ? divisor_override.value()
                                  : count_include_pad          ? (ph1 - ph0) * (pw1 - pw0)
                                                               : (h1 - h0) * (w1 - w0);
          *cell = static_cast<T>(sum / static_cast<Acc>(divisor));
        }
      }
    }
  });
  return out;
}

}  // namespace tailor::native
