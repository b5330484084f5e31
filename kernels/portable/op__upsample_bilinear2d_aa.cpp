#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::upsample_aa_detail {

// The input taps of one output index along one dim, as torch's antialiased bilinear
// resize takes them: a triangle filter widened by the scale when shrinking, its weights
// normalized to sum to 1.
template <typename M>
struct AaTaps {
  int64_t first = 0;
  int64_t count = 0;
  M center = M(0);
  M inv_scale = M(1);  // the filter's horizontal squeeze
  M total = M(0);      // the weights' sum before normalizing

  // The triangle filter at tap j, before normalizing.
  M raw_weight(int64_t j) const {
    M x = (static_cast<M>(first + j) - center + M(0.5)) * inv_scale;
    x = x < M(0) ? -x : x;
    return x < M(1) ? M(1) - x : M(0);
  }

  M weight(int64_t j) const { return total != M(0) ? raw_weight(j) / total : raw_weight(j); }
};

// Input positions per output step: corner to corner with align_corners, else 1 / scale
// when a scale is given, else in / out (torch's area_pixel_compute_scale).
template <typename M>
M aa_scale(int64_t in, int64_t out, bool align_corners, Optional<double> scale) {
  if (align_corners) {
    return out > 1 ? static_cast<M>(in - 1) / static_cast<M>(out - 1) : M(0);
  }
  return scale.has_value() && scale.value() > 0.0 ? static_cast<M>(1.0 / scale.value())
                                                   : static_cast<M>(in) / static_cast<M>(out);
}

template <typename M>
AaTaps<M> aa_taps(int64_t o, int64_t in, M scale) {
  AaTaps<M> t;
  const M support = scale >= M(1) ? scale : M(1);  // interp_size / 2, times the scale
  t.center = scale * (static_cast<M>(o) + M(0.5));
  t.inv_scale = scale >= M(1) ? M(1) / scale : M(1);
  const int64_t lo = static_cast<int64_t>(t.center - support + M(0.5));
  const int64_t hi = static_cast<int64_t>(t.center + support + M(0.5));
  t.first = lo > 0 ? lo : 0;
  t.count = (hi < in ? hi : in) - t.first;
  for (int64_t j = 0; j < t.count; ++j) {
    t.total += t.raw_weight(j);
  }
  return t;
}

}  // namespace tailor::native::upsample_aa_detail

namespace tailor::native {

// _upsample_bilinear2d_aa.out(Tensor self, SymInt[2] output_size, bool align_corners,
//                             float? scales_h=None, float? scales_w=None, *,
//                             Tensor(a!) out) -> Tensor(a!)
// Bilinear resize of the last two dims of a 4-d input with antialiasing (F.interpolate's
// antialias=True): when shrinking, each output averages every input under its widened
// triangle filter. Like torch, rows are filtered first, then columns; a dim whose size
// does not change is copied.
Tensor& _upsample_bilinear2d_aa_out(KernelContext& ctx, const Tensor& self,
                                    IntArrayRef output_size, bool align_corners,
                                    Optional<double> scales_h, Optional<double> scales_w,
                                    Tensor& out) {
  using upsample_aa_detail::aa_scale;
  using upsample_aa_detail::aa_taps;
  using upsample_aa_detail::AaTaps;
  // Validate
  TL_KERNEL_CHECK_MSG(ctx,
                      self.dim() == 4 && self.size(2) > 0 && self.size(3) > 0 &&
                          output_size.size() == 2 && output_size[0] > 0 && output_size[1] > 0,
                      InvalidArgument, out,
                      "_upsample_bilinear2d_aa.out: self must be 4-d (N, C, H, W) with H and W "
                      "non-empty, output_size two positive sizes");
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  const int64_t in_h = self.size(2);
  const int64_t in_w = self.size(3);
  const int64_t out_h = output_size[0];
  const int64_t out_w = output_size[1];
  const int64_t sizes[4] = {self.size(0), self.size(1), out_h, out_w};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, 4)) == Error::Ok, InvalidArgument,
                  out);

  // Compute: per output pixel, the column filter over the row-filtered input rows.
  const int64_t planes = self.size(0) * self.size(1);
  TL_SWITCH_FLOAT_TYPES(self.dtype(), ctx, "_upsample_bilinear2d_aa.out", T, [&] {
    using M = acc_t<T>;
    const M scale_h = aa_scale<M>(in_h, out_h, align_corners, scales_h);
    const M scale_w = aa_scale<M>(in_w, out_w, align_corners, scales_w);
    const T* src = self.const_data<T>();
    T* dst = out.mutable_data<T>();
    for (int64_t plane = 0; plane < planes; ++plane, src += in_h * in_w) {
      for (int64_t oh = 0; oh < out_h; ++oh) {
        AaTaps<M> th;
        if (in_h == out_h) {  // unchanged: the row itself
          th.first = oh;
          th.count = 1;
        } else {
          th = aa_taps<M>(oh, in_h, scale_h);
        }
        for (int64_t ow = 0; ow < out_w; ++ow) {
          AaTaps<M> tw;
          if (in_w == out_w) {
            tw.first = ow;
            tw.count = 1;
          } else {
            tw = aa_taps<M>(ow, in_w, scale_w);
          }
          M acc = M(0);
          for (int64_t y = 0; y < th.count; ++y) {
            const T* row = src + (th.first + y) * in_w + tw.first;
            M across = M(0);
            for (int64_t x = 0; x < tw.count; ++x) {
              across += (in_w == out_w ? M(1) : tw.weight(x)) * static_cast<M>(row[x]);
            }
            // Torch rounds the row-filtered values to T before filtering columns.
            const M rounded = static_cast<M>(static_cast<T>(across));
            acc += in_h == out_h ? rounded : th.weight(y) * rounded;
          }
          *dst++ = static_cast<T>(acc);
        }
      }
    }
  });
  return out;
}

}  // namespace tailor::native
