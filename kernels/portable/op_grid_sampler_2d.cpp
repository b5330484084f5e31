#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::grid_sampler_2d_detail {

// torch's interpolation_mode and padding_mode numbers (GridSamplerInterpolation/Padding).
enum Mode : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// A grid coordinate in [-1, 1] as a position in pixels: -1 and 1 are the corner pixels'
// centres with align_corners, else their outer edges. Rounded as torch's CPU kernel
// rounds it, so nearest mode picks its pixels.
template <typename T>
T unnormalize(T coord, int64_t size, bool align_corners) {
  return align_corners ? (coord + T(1)) * (static_cast<T>(size - 1) / T(2))
                       : (coord + T(1)) * (static_cast<T>(size) / T(2)) - T(0.5);
}

template <typename T>
T clip(T x, int64_t size) {
  const T high = static_cast<T>(size - 1);
  return x < T(0) ? T(0) : (x > high ? high : x);  // NaN stays NaN: no pixel is read
}

// Mirrors x into [low, high] (given doubled, so half-pixel bounds stay integers).
template <typename T>
T reflect(T x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) {
    return T(0);
  }
  const T low = static_cast<T>(twice_low) / T(2);
  const T span = static_cast<T>(twice_high - twice_low) / T(2);
  x = math::fabs(x - low);
  const T extra = math::fmod(x, span);
  const int64_t flips = static_cast<int64_t>(math::floor(x / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

// The source position of a grid coordinate under the padding mode, as torch computes it.
template <typename T>
T source_index(T coord, int64_t size, int64_t padding, bool align_corners) {
  T x = unnormalize(coord, size, align_corners);
  if (padding == kBorder) {
    x = clip(x, size);
  } else if (padding == kReflection) {
    x = align_corners ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    x = clip(x, size);
  }
  return x;
}

inline bool inside(int64_t x, int64_t y, int64_t w, int64_t h) {
  return x >= 0 && x < w && y >= 0 && y < h;
}

// Pixel (x, y) of `plane` (w wide), or 0 outside it.
template <typename T, typename Acc>
Acc pixel(const T* plane, int64_t x, int64_t y, int64_t w, int64_t h) {
  return inside(x, y, w, h) ? static_cast<Acc>(plane[y * w + x]) : Acc(0);
}

// Position -> pixel index for the bicubic taps, which take padding each on its own.
template <typename T>
int64_t bicubic_tap(int64_t at, int64_t size, int64_t padding, bool align_corners) {
  T x = static_cast<T>(at);
  if (padding == kBorder) {
    x = clip(x, size);
  } else if (padding == kReflection) {
    x = align_corners ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    x = clip(x, size);
  }
  return static_cast<int64_t>(x);
}

// The cubic convolution weights (A = -0.75, as torch) of the 4 taps around fraction t.
template <typename T>
void cubic_weights(T t, T w[4]) {
  const T a = T(-0.75);
  auto near = [a](T x) { return ((a + T(2)) * x - (a + T(3))) * x * x + T(1); };
  auto far = [a](T x) { return ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a; };
  w[0] = far(t + T(1));
  w[1] = near(t);
  w[2] = near(T(1) - t);
  w[3] = far(T(2) - t);
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
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, input.dim() == 4 && grid.dim() == 4 && grid.size(3) == 2 &&
                               grid.size(0) == input.size(0),
                      InvalidArgument, out,
                      "grid_sampler_2d.out: input must be [N, C, H, W] and grid [N, H_out, "
                      "W_out, 2]");
  TL_KERNEL_CHECK_MSG(ctx, input.size(2) > 0 && input.size(3) > 0, InvalidArgument, out,
                      "grid_sampler_2d.out: the input has an empty spatial dim");
  TL_KERNEL_CHECK_MSG(ctx, interpolation_mode >= d::kBilinear &&
                               interpolation_mode <= d::kBicubic && padding_mode >= d::kZeros &&
                               padding_mode <= d::kReflection,
                      InvalidArgument, out,
                      "grid_sampler_2d.out: interpolation_mode %lld or padding_mode %lld is "
                      "not one of torch's (0-2 each)", static_cast<long long>(interpolation_mode),
                      static_cast<long long>(padding_mode));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(input, grid) && same_dtype(input, out), InvalidArgument,
                      out, "grid_sampler_2d.out: input, grid and out must have one dtype");
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(input) && is_default_dim_order(grid) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  const int64_t sizes[4] = {input.size(0), input.size(1), grid.size(1), grid.size(2)};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, 4)) == Error::Ok,
                  InvalidArgument, out);

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
