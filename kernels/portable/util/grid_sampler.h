// What grid_sampler_2d and grid_sampler_3d share: torch's mode numbers and the mapping of
// a grid coordinate in [-1, 1] to a source position under each padding mode.
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::grid_sampler {

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

// Checks F.grid_sample's arguments over `spatial` dims (2 or 3): input [N, C, *in],
// grid [N, *out, spatial], modes up to `last_mode` (bicubic only in 2-D), one dtype,
// contiguous; then resizes out to [N, C, *out]. False (ctx failed, naming `op`) when they
// do not fit.
inline bool check_grid_sampler(KernelContext& ctx, const char* op, const Tensor& input,
                               const Tensor& grid, int64_t spatial, int64_t interpolation_mode,
                               int64_t last_mode, int64_t padding_mode, Tensor& out) {
  const int64_t rank = spatial + 2;
  TL_KERNEL_CHECK_MSG(ctx, input.dim() == rank && grid.dim() == rank &&
                               grid.size(rank - 1) == spatial && grid.size(0) == input.size(0),
                      InvalidArgument, false,
                      "%s: input must be [N, C, <%lld spatial dims>] and grid [N, <%lld output "
                      "dims>, %lld]", op, static_cast<long long>(spatial),
                      static_cast<long long>(spatial), static_cast<long long>(spatial));
  bool filled = true;
  for (int64_t d = 2; d < rank; ++d) filled = filled && input.size(d) > 0;
  TL_KERNEL_CHECK_MSG(ctx, filled, InvalidArgument, false,
                      "%s: the input has an empty spatial dim", op);
  TL_KERNEL_CHECK_MSG(ctx, interpolation_mode >= kBilinear && interpolation_mode <= last_mode &&
                               padding_mode >= kZeros && padding_mode <= kReflection,
                      InvalidArgument, false,
                      "%s: interpolation_mode %lld or padding_mode %lld is not one torch takes "
                      "here (modes 0-%lld, padding 0-2)", op,
                      static_cast<long long>(interpolation_mode),
                      static_cast<long long>(padding_mode), static_cast<long long>(last_mode));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(input, grid) && same_dtype(input, out), InvalidArgument,
                      false, "%s: input, grid and out must have one dtype", op);
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(input) && is_default_dim_order(grid) &&
                      is_default_dim_order(out),
                  InvalidArgument, false);
  int64_t sizes[5] = {input.size(0), input.size(1)};
  for (int64_t d = 0; d < spatial; ++d) sizes[2 + d] = grid.size(1 + d);
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, rank)) == Error::Ok,
                  InvalidArgument, false);
  return true;
}

}  // namespace tailor::native::grid_sampler
