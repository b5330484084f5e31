// Shared by upsample_nearest2d.vec_out and upsample_bilinear2d.vec_out: the output size
// from output_size or scale_factors, and the source position of each output index,
// computed as torch computes them (in float where torch does, so indices match).
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// A 4-d (N, C, H, W) input resampled to out_h x out_w.
struct UpsamplePlan {
  int64_t planes = 0;  // N * C images
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t out_h = 0;
  int64_t out_w = 0;
  // The scale factors when the call gives them: torch then maps output to input indices
  // with 1 / scale rather than in / out, which can pick different pixels.
  Optional<double> scale_h;
  Optional<double> scale_w;
  int64_t out_sizes[4] = {};

  IntArrayRef sizes() const { return IntArrayRef(out_sizes, 4); }
};

// One output dim from a scale factor: floor(in * scale) as torch computes it, or -1 when
// that is not a positive int32 (NaN included).
inline int64_t scaled_length(int64_t in, double scale) {
  const double length = static_cast<double>(in) * scale;
  return length >= 1.0 && length < 2147483648.0 ? static_cast<int64_t>(length) : -1;
}

// Reads the input and exactly one of output_size and scale_factors (two values each);
// returns what is wrong, or nullptr.
inline const char* read_upsample_args(const Tensor& in, Optional<IntArrayRef> output_size,
                                      Optional<ArrayRef<double>> scale_factors,
                                      UpsamplePlan* p) {
  if (in.dim() != 4) {
    return "input must be 4-d (N, C, H, W)";
  }
  if (in.size(1) == 0 || in.size(2) == 0 || in.size(3) == 0) {
    return "input has an empty channel or spatial dim";
  }
  if (output_size.has_value() == scale_factors.has_value()) {
    return "give exactly one of output_size and scale_factors";
  }
  p->planes = in.size(0) * in.size(1);
  p->in_h = in.size(2);
  p->in_w = in.size(3);
  if (output_size.has_value()) {
    const IntArrayRef size = output_size.value();
    if (size.size() != 2) {
      return "output_size must have 2 values";
    }
    p->out_h = size[0];
    p->out_w = size[1];
  } else {
    const ArrayRef<double> scales = scale_factors.value();
    if (scales.size() != 2) {
      return "scale_factors must have 2 values";
    }
    p->scale_h = scales[0];
    p->scale_w = scales[1];
    p->out_h = scaled_length(p->in_h, scales[0]);
    p->out_w = scaled_length(p->in_w, scales[1]);
  }
  if (p->out_h <= 0 || p->out_w <= 0 || p->out_h > 0x7fffffff || p->out_w > 0x7fffffff) {
    return "the output size must be in [1, 2^31)";
  }
  p->out_sizes[0] = in.size(0);
  p->out_sizes[1] = in.size(1);
  p->out_sizes[2] = p->out_h;
  p->out_sizes[3] = p->out_w;
  return nullptr;
}

// Input index read by output index `o` in nearest mode (torch's legacy rule, not
// nearest-exact): floor(o * (1 / scale or in / out)) in float, with copies and exact
// doublings special-cased.
inline int64_t nearest_source(int64_t o, int64_t in, int64_t out, Optional<double> scale) {
  if (out == in) {
    return o;
  }
  if (out == 2 * in) {
    return o >> 1;
  }
  const float ratio = scale.has_value() && scale.value() > 0.0
                          ? static_cast<float>(1.0 / scale.value())
                          : static_cast<float>(in) / static_cast<float>(out);
  const int64_t i = static_cast<int64_t>(math::floor(static_cast<float>(o) * ratio));
  return i < in - 1 ? i : in - 1;
}

// Linear interpolation along one dim: output index o reads inputs i0 and i1 with weights
// l0 and l1.
template <typename Acc>
struct LinearTap {
  int64_t i0;
  int64_t i1;
  Acc l0;
  Acc l1;
};

// Input positions per output step: corner to corner with align_corners, else 1 / scale
// when a scale factor is given, else in / out.
template <typename Acc>
Acc linear_ratio(int64_t in, int64_t out, bool align_corners, Optional<double> scale) {
  if (align_corners) {
    return out > 1 ? static_cast<Acc>(in - 1) / static_cast<Acc>(out - 1) : Acc(0);
  }
  return scale.has_value() && scale.value() > 0.0
             ? static_cast<Acc>(1.0 / scale.value())
             : static_cast<Acc>(in) / static_cast<Acc>(out);
}

template <typename Acc>
LinearTap<Acc> linear_tap(int64_t o, int64_t in, int64_t out, bool align_corners,
                          Acc ratio) {
  if (out == in) {
    return {o, o, Acc(1), Acc(0)};
  }
  // Pixel centres line up without align_corners; positions left of the first centre
  // clamp to it.
  Acc src = align_corners ? ratio * static_cast<Acc>(o)
                          : ratio * (static_cast<Acc>(o) + Acc(0.5)) - Acc(0.5);
  src = src < Acc(0) ? Acc(0) : src;
  // Torch floors in float even for double inputs; matching it keeps the same pixels.
  int64_t i0 = static_cast<int64_t>(math::floor(static_cast<float>(src)));
  i0 = i0 < in - 1 ? i0 : in - 1;
  Acc l1 = src - static_cast<Acc>(i0);
  l1 = l1 < Acc(0) ? Acc(0) : (l1 > Acc(1) ? Acc(1) : l1);
  return {i0, i0 < in - 1 ? i0 + 1 : i0, Acc(1) - l1, l1};
}

}  // namespace tailor::native
