#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/max_pool.h"
#include "kernels/portable/util/pool3d.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// max_pool3d_with_indices.out(Tensor self, int[3] kernel_size, int[3] stride=[],
//                             int[3] padding=0, int[3] dilation=1, bool ceil_mode=False, *,
//                             Tensor(a!) out, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
// The maximum of each window of a 4-d or 5-d input, and its index (Long) in the
// flattened D x H x W volume. As the 2-d kernel: padding is never the maximum, the first
// maximum wins ties, the last NaN beats everything, and a window only over padding gives
// the lowest value and the index of its first tap past the padding.
void max_pool3d_with_indices_out(KernelContext& ctx, const Tensor& self,
                                 IntArrayRef kernel_size, IntArrayRef stride,
                                 IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                 Tensor& out, Tensor& indices) {
  // Validate
  Pool3d p;
  const char* problem = read_pool3d(self, kernel_size, stride, padding, dilation, ceil_mode, &p);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, ,
                      "max_pool3d_with_indices.out: %s", problem);
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out) && indices.dtype() == ScalarType::Long,
                      InvalidArgument, ,
                      "max_pool3d_with_indices.out: out must have self's dtype and indices "
                      "must be Long");
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(out) &&
                      is_default_dim_order(indices),
                  InvalidArgument, );

  // Resize
  TL_KERNEL_CHECK(ctx,
                  resize_tensor(out, p.sizes()) == Error::Ok &&
                      resize_tensor(indices, p.sizes()) == Error::Ok,
                  InvalidArgument, );

  // Compute: 16-bit floats compare in float (exact, and the maximum is stored back as is).
  TL_SWITCH_REALHBF16_TYPES(self.dtype(), ctx, "max_pool3d_with_indices.out", T, [&] {
    using Acc = acc_t<T>;
    const int64_t in_h = p.in[1];
    const int64_t in_w = p.in[2];
    T* dst = out.mutable_data<T>();
    int64_t* idx = indices.mutable_data<int64_t>();
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      const T* src = self.const_data<T>() + plane * p.in_volume();
      for (int64_t od = 0; od < p.out[0]; ++od) {
        const int64_t sd = od * p.stride[0] - p.pad[0];
        const int64_t d0 = max_pool_first_tap(sd, p.dilation[0]);
        const int64_t d1 = max_pool_tap_end(sd, p.kernel[0], p.dilation[0], p.in[0]);
        for (int64_t oh = 0; oh < p.out[1]; ++oh) {
          const int64_t sh = oh * p.stride[1] - p.pad[1];
          const int64_t h0 = max_pool_first_tap(sh, p.dilation[1]);
          const int64_t h1 = max_pool_tap_end(sh, p.kernel[1], p.dilation[1], in_h);
          for (int64_t ow = 0; ow < p.out[2]; ++ow) {
            const int64_t sw = ow * p.stride[2] - p.pad[2];
            const int64_t w0 = max_pool_first_tap(sw, p.dilation[2]);
            const int64_t w1 = max_pool_tap_end(sw, p.kernel[2], p.dilation[2], in_w);
            Acc best = lowest_value<Acc>();
            int64_t best_at = (d0 * in_h + h0) * in_w + w0;
            for (int64_t d = d0; d < d1; d += p.dilation[0]) {
              for (int64_t h = h0; h < h1; h += p.dilation[1]) {
                const T* row = src + (d * in_h + h) * in_w;
                for (int64_t x = w0; x < w1; x += p.dilation[2]) {
                  const Acc v = static_cast<Acc>(row[x]);
                  if (v > best || is_nan_value(v)) {
                    best = v;
                    best_at = (d * in_h + h) * in_w + x;
                  }
                }
              }
            }
            *dst++ = static_cast<T>(best);
            *idx++ = best_at;
          }
        }
      }
    }
  });
}

}  // namespace tailor::native
