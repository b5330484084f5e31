#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/pool3d.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::avg_pool3d_detail {

// One dim of a window: [lo, hi) within the input and the length it has within the
// padded input (what count_include_pad divides by).
struct Span {
  int64_t lo;
  int64_t hi;
  int64_t padded;
};

inline Span span(int64_t o, int64_t stride, int64_t pad, int64_t kernel, int64_t in) {
  const int64_t p0 = o * stride - pad;
  const int64_t p1 = p0 + kernel < in + pad ? p0 + kernel : in + pad;
  return {p0 > 0 ? p0 : 0, p1 < in ? p1 : in, p1 - p0};
}

}  // namespace tailor::native::avg_pool3d_detail

namespace tailor::native {

// avg_pool3d.out(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
//                bool ceil_mode=False, bool count_include_pad=True,
//                int? divisor_override=None, *, Tensor(a!) out) -> Tensor(a!)
// The mean of each window of a 4-d or 5-d input. The divisor is divisor_override if
// given, else the window's size clipped to the padded input (count_include_pad) or to
// the input alone, as the 2-d kernel.
Tensor& avg_pool3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                       IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                       bool count_include_pad, Optional<int64_t> divisor_override,
                       Tensor& out) {
  using avg_pool3d_detail::Span;
  // Validate
  Pool3d p;
  const int64_t no_dilation[1] = {1};
  const char* problem = read_pool3d(self, kernel_size, stride, padding,
                                    IntArrayRef(no_dilation, 1), ceil_mode, &p);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, out, "avg_pool3d.out: %s",
                      problem);
  TL_KERNEL_CHECK_MSG(ctx, !divisor_override.has_value() || divisor_override.value() != 0,
                      InvalidArgument, out, "avg_pool3d.out: divisor_override must not be 0");
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out), InvalidArgument, out,
                      "avg_pool3d.out: out has dtype %s, self %s", scalar_type_name(out.dtype()),
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, p.sizes()) == Error::Ok, InvalidArgument, out);

  // Compute
  TL_SWITCH_FLOAT_TYPES(self.dtype(), ctx, "avg_pool3d.out", T, [&] {
    using Acc = acc_t<T>;
    const int64_t in_h = p.in[1];
    const int64_t in_w = p.in[2];
    T* dst = out.mutable_data<T>();
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      const T* src = self.const_data<T>() + plane * p.in_volume();
      for (int64_t od = 0; od < p.out[0]; ++od) {
        const Span sd = avg_pool3d_detail::span(od, p.stride[0], p.pad[0], p.kernel[0], p.in[0]);
        for (int64_t oh = 0; oh < p.out[1]; ++oh) {
          const Span sh = avg_pool3d_detail::span(oh, p.stride[1], p.pad[1], p.kernel[1], in_h);
          for (int64_t ow = 0; ow < p.out[2]; ++ow) {
            const Span sw =
                avg_pool3d_detail::span(ow, p.stride[2], p.pad[2], p.kernel[2], in_w);
            if (sd.lo >= sd.hi || sh.lo >= sh.hi || sw.lo >= sw.hi) {
              *dst++ = static_cast<T>(Acc(0));
              continue;
            }
            Acc sum = 0;
            for (int64_t d = sd.lo; d < sd.hi; ++d) {
              for (int64_t h = sh.lo; h < sh.hi; ++h) {
                const T* row = src + (d * in_h + h) * in_w;
                for (int64_t x = sw.lo; x < sw.hi; ++x) {
                  sum += static_cast<Acc>(row[x]);
                }
              }
            }
            const int64_t divisor =
                divisor_override.has_value() ? divisor_override.value()
                : count_include_pad          ? sd.padded * sh.padded * sw.padded
                                             : (sd.hi - sd.lo) * (sh.hi - sh.lo) * (sw.hi - sw.lo);
            *dst++ = static_cast<T>(sum / static_cast<Acc>(divisor));
          }
        }
      }
    }
  });
  return out;
}

}  // namespace tailor::native
