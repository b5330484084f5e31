#include "kernels/portable/util/max_pool.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//                             int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *,
//                             Tensor(a!) out, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
// The maximum of each window of a 3-d or 4-d input, and its index (Long) in the flattened
// H x W plane. Padding is never the maximum; ties and NaN as util/max_pool.h says.
void max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self,
                                 IntArrayRef kernel_size, IntArrayRef stride,
                                 IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                 Tensor& out, Tensor& indices) {
  // Validate and resize
  PoolPlanes in;
  PoolWindow w;
  if (!check_max_pool2d_with_indices(ctx, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, out, indices, &in, &w)) {
    return;
  }

  // Compute: 16-bit floats compare in float (exact, and the maximum is stored back as is).
  TL_SWITCH_REALHBF16_TYPES(self.dtype(), ctx, "max_pool2d_with_indices.out", T, [&] {
    const int64_t plane_out = w.out_h * w.out_w;
    for (int64_t p = 0; p < in.planes; ++p) {
      const T* src = self.const_data<T>() + p * in.in_h * in.in_w;
      T* dst = out.mutable_data<T>() + p * plane_out;
      int64_t* idx = indices.mutable_data<int64_t>() + p * plane_out;
      for (int64_t oh = 0; oh < w.out_h; ++oh) {
        const int64_t start = oh * w.stride_h - w.pad_h;
        const int64_t h0 = max_pool_first_tap(start, w.dilation_h);
        const int64_t h1 = max_pool_tap_end(start, w.kernel_h, w.dilation_h, in.in_h);
        for (int64_t ow = 0; ow < w.out_w; ++ow) {
          max_pool_cell(src, in.in_w, w, h0, h1, ow, dst + oh * w.out_w + ow,
                        idx + oh * w.out_w + ow);
        }
      }
    }
  });
}

}  // namespace tailor::native
