#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/grid_sampler.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::grid_sampler_2d_detail {

using namespace grid_sampler;  // the helpers shared with grid_sampler_3d

inline bool inside(int64_t x, int64_t y, int64_t w, int64_t h) {
  return x >= 0 && x < w && y >= 0 && y < h;
}

// Pixel (x, y) of `plane` (w wide), or 0 outside it.
template <typename T, typename Acc>
Acc pixel(const T* plane, int64_t x, int64_t y, int64_t w, int64_t h) {
  return inside(x, y, w, h) ? static_cast<Acc>(plane[y * w + x]) : Acc(0);
}

}  // namespace tailor::native::grid_sampler_2d_detail

namespace tailor::native {

// grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//                     bool align_corners, *, Tensor(a!) out) -> Tensor(a!)
// F.grid_sample on 4-d input [N, C, H, W] at grid [N, H_out, W_out, 2] of (x, y) in
// [-1, 1]: out [N, C, H_out, W_out]. Modes 0 bilinear, 1 nearest (half to even), 2
// bicubic; padding 0 zeros, 1 border, 2 reflection, computed as torch's CPU kernel does.
Tensor& grid_sampler_2d_out(KernelContext& ctx, const Tensor& input, const Tensor& grid,
                            int64_t interpolation_mode, int64_t padding_mode,
                            bool align_corners, Tensor& out) {
  namespace d = grid_sampler_2d_detail;
  // Validate, resize
  if (!d::check_grid_sampler(ctx, "grid_sampler_2d.out", input, grid, 2, interpolation_mode,
                             d::kBicubic, padding_mode, out)) {
    return out;
  }

  // Compute: per output cell, its source position once, then every channel.
  TL_SWITCH_FLOAT_TYPES(input.dtype(), ctx, "grid_sampler_2d.out", T, [&] {
    using Acc = acc_t<T>;
    const int64_t channels = input.size(1);
    const int64_t h = input.size(2);
    const int64_t w = input.size(3);
    const int64_t cells = grid.size(1) * grid.size(2);
    const T* g = grid.const_data<T>();
    for (int64_t n = 0; n < input.size(0); ++n) {
      const T* src = input.const_data<T>() + n * channels * h * w;
      T* dst = out.mutable_data<T>() + n * channels * cells;
      for (int64_t cell = 0; cell < cells; ++cell) {
        const Acc gx = static_cast<Acc>(g[(n * cells + cell) * 2]);
        const Acc gy = static_cast<Acc>(g[(n * cells + cell) * 2 + 1]);
        if (interpolation_mode == d::kBicubic) {
          const Acc x = d::unnormalize(gx, w, align_corners);
          const Acc y = d::unnormalize(gy, h, align_corners);
          const Acc x0 = math::floor(x);
          const Acc y0 = math::floor(y);
          Acc wx[4];
          Acc wy[4];
          d::cubic_weights(x - x0, wx);
          d::cubic_weights(y - y0, wy);
          int64_t xs[4];
          int64_t ys[4];
          for (int64_t i = 0; i < 4; ++i) {
            xs[i] = d::bicubic_tap<Acc>(static_cast<int64_t>(x0) - 1 + i, w, padding_mode,
                                        align_corners);
            ys[i] = d::bicubic_tap<Acc>(static_cast<int64_t>(y0) - 1 + i, h, padding_mode,
                                        align_corners);
          }
          for (int64_t c = 0; c < channels; ++c) {
            const T* plane = src + c * h * w;
            Acc sum = 0;
            for (int64_t j = 0; j < 4; ++j) {
              Acc row = 0;
              for (int64_t i = 0; i < 4; ++i) {
                row += d::pixel<T, Acc>(plane, xs[i], ys[j], w, h) * wx[i];
              }
              sum += row * wy[j];
            }
            dst[c * cells + cell] = static_cast<T>(sum);
          }
          continue;
        }
        const Acc x = d::source_index(gx, w, padding_mode, align_corners);
        const Acc y = d::source_index(gy, h, padding_mode, align_corners);
        if (interpolation_mode == d::kNearest) {
          // Positions beyond int64 (or NaN) lie outside: no pixel is read.
          const bool finite = math::fabs(x) < Acc(1e18) && math::fabs(y) < Acc(1e18);
          const int64_t xi = finite ? static_cast<int64_t>(__builtin_nearbyint(x)) : -1;
          const int64_t yi = finite ? static_cast<int64_t>(__builtin_nearbyint(y)) : -1;
          for (int64_t c = 0; c < channels; ++c) {
            dst[c * cells + cell] = static_cast<T>(d::pixel<T, Acc>(src + c * h * w, xi, yi, w, h));
          }
          continue;
        }
        // Bilinear: the four pixels around (x, y), each weighted by the opposite area.
        const bool finite = math::fabs(x) < Acc(1e18) && math::fabs(y) < Acc(1e18);
        const Acc fx = finite ? math::floor(x) : Acc(-2);
        const Acc fy = finite ? math::floor(y) : Acc(-2);
        const int64_t x0 = static_cast<int64_t>(fx);
        const int64_t y0 = static_cast<int64_t>(fy);
        const Acc e = finite ? x - fx : Acc(0);
        const Acc s = finite ? y - fy : Acc(0);
        const Acc nw = (Acc(1) - e) * (Acc(1) - s);
        const Acc ne = e * (Acc(1) - s);
        const Acc sw = (Acc(1) - e) * s;
        const Acc se = e * s;
        for (int64_t c = 0; c < channels; ++c) {
          const T* plane = src + c * h * w;
          const Acc v = d::pixel<T, Acc>(plane, x0, y0, w, h) * nw +
                        d::pixel<T, Acc>(plane, x0 + 1, y0, w, h) * ne +
                        d::pixel<T, Acc>(plane, x0, y0 + 1, w, h) * sw +
                        d::pixel<T, Acc>(plane, x0 + 1, y0 + 1, w, h) * se;
          dst[c * cells + cell] = static_cast<T>(v);
        }
      }
    }
  });
  return out;
}

}  // namespace tailor::native
