#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/grid_sampler.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::grid_sampler_3d_detail {

// The extent of the input's spatial dims.
struct Volume {
  int64_t d;
  int64_t h;
  int64_t w;
};

// Voxel (x, y, z) of `block` (one channel's [D, H, W]), or 0 outside it.
template <typename T, typename Acc>
Acc voxel(const T* block, int64_t x, int64_t y, int64_t z, const Volume& v) {
  const bool in = x >= 0 && x < v.w && y >= 0 && y < v.h && z >= 0 && z < v.d;
  return in ? static_cast<Acc>(block[(z * v.h + y) * v.w + x]) : Acc(0);
}

// Positions beyond int64 (or NaN) lie outside: no voxel is read.
template <typename Acc>
bool addressable(Acc x) {
  return math::fabs(x) < Acc(1e18);
}

}  // namespace tailor::native::grid_sampler_3d_detail

namespace tailor::native {

// grid_sampler_3d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//                     bool align_corners, *, Tensor(a!) out) -> Tensor(a!)
// F.grid_sample on 5-d input [N, C, D, H, W] at grid [N, D_out, H_out, W_out, 3] of
// (x, y, z) in [-1, 1]: out [N, C, D_out, H_out, W_out]. Modes 0 bilinear (trilinear: the
// 8 voxels around the position) and 1 nearest (half to even); torch has no bicubic in 3-D.
// Padding 0 zeros, 1 border, 2 reflection, as in grid_sampler_2d (util/grid_sampler.h).
Tensor& grid_sampler_3d_out(KernelContext& ctx, const Tensor& input, const Tensor& grid,
                            int64_t interpolation_mode, int64_t padding_mode,
                            bool align_corners, Tensor& out) {
  namespace g = grid_sampler;
  namespace d = grid_sampler_3d_detail;
  // Validate, resize
  if (!g::check_grid_sampler(ctx, "grid_sampler_3d.out", input, grid, 3, interpolation_mode,
                             g::kNearest, padding_mode, out)) {
    return out;
  }

  // Compute: per output cell, its source position once, then every channel.
  TL_SWITCH_FLOAT_TYPES(input.dtype(), ctx, "grid_sampler_3d.out", T, [&] {
    using Acc = acc_t<T>;
    const int64_t channels = input.size(1);
    const d::Volume v{input.size(2), input.size(3), input.size(4)};
    const int64_t block = v.d * v.h * v.w;
    const int64_t cells = grid.size(1) * grid.size(2) * grid.size(3);
    const T* gp = grid.const_data<T>();
    for (int64_t n = 0; n < input.size(0); ++n) {
      const T* src = input.const_data<T>() + n * channels * block;
      T* dst = out.mutable_data<T>() + n * channels * cells;
      for (int64_t cell = 0; cell < cells; ++cell) {
        const T* at = gp + (n * cells + cell) * 3;
        const Acc x = g::source_index(static_cast<Acc>(at[0]), v.w, padding_mode, align_corners);
        const Acc y = g::source_index(static_cast<Acc>(at[1]), v.h, padding_mode, align_corners);
        const Acc z = g::source_index(static_cast<Acc>(at[2]), v.d, padding_mode, align_corners);
        const bool finite = d::addressable(x) && d::addressable(y) && d::addressable(z);
        if (interpolation_mode == g::kNearest) {
          const int64_t xi = finite ? static_cast<int64_t>(__builtin_nearbyint(x)) : -1;
          const int64_t yi = finite ? static_cast<int64_t>(__builtin_nearbyint(y)) : -1;
          const int64_t zi = finite ? static_cast<int64_t>(__builtin_nearbyint(z)) : -1;
          for (int64_t c = 0; c < channels; ++c) {
            dst[c * cells + cell] =
                static_cast<T>(d::voxel<T, Acc>(src + c * block, xi, yi, zi, v));
          }
          continue;
        }
        // Trilinear: the eight voxels around (x, y, z), each weighted by the opposite
        // box's volume.
        const Acc fx = finite ? math::floor(x) : Acc(-2);
        const Acc fy = finite ? math::floor(y) : Acc(-2);
        const Acc fz = finite ? math::floor(z) : Acc(-2);
        const int64_t x0 = static_cast<int64_t>(fx);
        const int64_t y0 = static_cast<int64_t>(fy);
        const int64_t z0 = static_cast<int64_t>(fz);
        const Acc ex = finite ? x - fx : Acc(0);
        const Acc ey = finite ? y - fy : Acc(0);
        const Acc ez = finite ? z - fz : Acc(0);
        const Acc wx[2] = {Acc(1) - ex, ex};
        const Acc wy[2] = {Acc(1) - ey, ey};
        const Acc wz[2] = {Acc(1) - ez, ez};
        for (int64_t c = 0; c < channels; ++c) {
          const T* b = src + c * block;
          Acc sum = 0;
          for (int64_t k = 0; k < 2; ++k) {
            for (int64_t j = 0; j < 2; ++j) {
              for (int64_t i = 0; i < 2; ++i) {
                sum += d::voxel<T, Acc>(b, x0 + i, y0 + j, z0 + k, v) * (wx[i] * wy[j] * wz[k]);
              }
            }
          }
          dst[c * cells + cell] = static_cast<T>(sum);
        }
      }
    }
  });
  return out;
}

}  // namespace tailor::native
