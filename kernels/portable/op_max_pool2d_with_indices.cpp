#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/pool.h"
#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//                             int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *,
//                             Tensor(a!) out, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
// The maximum of each window of a 3-d or 4-d input, and its index (Long) in the flattened
// H x W plane. Padding is never the maximum. As in torch, the first maximum wins ties and
// the last NaN beats everything; a window that only covers padding (possible with
// dilation) gives the lowest value and the index of its first tap past the padding.
void max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self,
                                 IntArrayRef kernel_size, IntArrayRef stride,
                                 IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                 Tensor& out, Tensor& indices) {
  // Validate
  PoolPlanes in;
  const char* problem = read_pool_input(self, false, &in);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, ,
                      "max_pool2d_with_indices.out: %s", problem);
  PoolWindow w;
  problem = read_pool_window(in, kernel_size, stride, padding, dilation, ceil_mode, &w);
  TL_KERNEL_CHECK_MSG(ctx, problem == nullptr, InvalidArgument, ,
                      "max_pool2d_with_indices.out: %s", problem);
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out) && indices.dtype() == ScalarType::Long,
                      InvalidArgument, ,
                      "max_pool2d_with_indices.out: out must have self's dtype and indices "
                      "must be Long");
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(out) &&
                      is_default_dim_order(indices),
                  InvalidArgument, );

  // Resize
  const IntArrayRef out_sizes = in.set_out(self, w.out_h, w.out_w);
  TL_KERNEL_CHECK(ctx,
                  resize_tensor(out, out_sizes) == Error::Ok &&
                      resize_tensor(indices, out_sizes) == Error::Ok,
                  InvalidArgument, );

  // Compute: 16-bit floats compare in float (exact, and the maximum is stored back as is).
  TL_SWITCH_REALHBF16_TYPES(self.dtype(), ctx, "max_pool2d_with_indices.out", T, [&] {
    using Acc = acc_t<T>;
    const int64_t in_h = in.in_h;
    const int64_t in_w = in.in_w;
    const int64_t plane_out = w.out_h * w.out_w;
    for (int64_t p = 0; p < in.planes; ++p) {
      const T* src = self.const_data<T>() + p * in_h * in_w;
      T* dst = out.mutable_data<T>() + p * plane_out;
      int64_t* idx = indices.mutable_data<int64_t>() + p * plane_out;
      for (int64_t oh = 0; oh < w.out_h; ++oh) {
        // Rows [h0, h1) step dilation_h, h0 moved onto the first tap inside the input.
        int64_t h0 = oh * w.stride_h - w.pad_h;
        const int64_t h_end = h0 + (w.kernel_h - 1) * w.dilation_h + 1;
        const int64_t h1 = h_end < in_h ? h_end : in_h;
        if (h0 < 0) {
          h0 += (-h0 + w.dilation_h - 1) / w.dilation_h * w.dilation_h;
        }
        for (int64_t ow = 0; ow < w.out_w; ++ow) {
          int64_t w0 = ow * w.stride_w - w.pad_w;
          const int64_t w_end = w0 + (w.kernel_w - 1) * w.dilation_w + 1;
          const int64_t w1 = w_end < in_w ? w_end : in_w;
          if (w0 < 0) {
            w0 += (-w0 + w.dilation_w - 1) / w.dilation_w * w.dilation_w;
          }
          Acc best = lowest_value<Acc>();
          int64_t best_at = h0 * in_w + w0;
          for (int64_t h = h0; h < h1; h += w.dilation_h) {
            const T* row = src + h * in_w;
            for (int64_t x = w0; x < w1; x += w.dilation_w) {
              const Acc v = static_cast<Acc>(row[x]);
              if (v > best || is_nan_value(v)) {
                best = v;
                best_at = h * in_w + x;
              }
            }
          }
          dst[oh * w.out_w + ow] = static_cast<T>(best);
          idx[oh * w.out_w + ow] = best_at;
        }
      }
    }
  });
}

}  // namespace tailor::native
