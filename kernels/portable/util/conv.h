// The loops behind convolution.out (op_convolution.cpp), on contiguous NCHW (NCDHW)
// tensors; a 1-D convolution runs as a 2-D one of height 1, a 2-D one as a 3-D one of
// depth 1 (the depth loops of the direct paths then run once).
//
// - conv_gemm(): each group is a matrix product, weight [cout_g, cin_g * kh * kw] times
//   the input's patches [cin_g * kh * kw, out_h * out_w]. The patches are never stored
//   whole: blocks of them are gathered into a stack panel laid out as matmul_micro()
//   (util/matmul.h) reads it, and its register tiles accumulate straight into `out`.
// - conv_direct(): one output row at a time, summed on the stack in the accumulation
//   type, one kernel tap per pass over the row. For depthwise and other narrow groups
//   (few output channels share each patch, so gathering patches does not pay), for
//   16-bit floats whose depth does not fit one panel, for 3-D convolutions and for -Os
//   builds.
// - conv_transposed_direct(): the same per output row, gathering from the input the
//   taps that land on it (each output column takes every stride-th input column).
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/matmul.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// One convolution's geometry, checked by the kernel: every size and step positive,
// padding non-negative, and all small enough that index products fit in int64.
struct ConvShape {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t in_d = 1;  // the depth dims: 1 (and no padding) but in a 3-D convolution
  int64_t out_d = 1;
  int64_t kernel_d = 1;
  int64_t stride_d = 1;
  int64_t pad_d = 0;
  int64_t dilation_d = 1;
  int64_t in_h = 1;
  int64_t in_w = 0;
  int64_t out_channels = 0;
  int64_t out_h = 1;
  int64_t out_w = 0;
  int64_t kernel_h = 1;
  int64_t kernel_w = 0;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_h = 0;
  int64_t pad_w = 0;
  int64_t dilation_h = 1;
  int64_t dilation_w = 1;
  int64_t groups = 1;

  int64_t in_per_group() const { return in_channels / groups; }
  // A 3-D convolution: only the direct loops take a depth.
  bool volumetric() const { return in_d != 1 || out_d != 1 || kernel_d != 1; }
  int64_t out_per_group() const { return out_channels / groups; }
  int64_t in_volume() const { return in_d * in_h * in_w; }  // one input channel's elements
  int64_t kernel_volume() const { return kernel_d * kernel_h * kernel_w; }  // its taps
  // 1x1, stride 1, no padding: the patch matrix of a group is its input planes as is.
  bool pointwise() const {
    return kernel_h == 1 && kernel_w == 1 && stride_h == 1 && stride_w == 1 && pad_h == 0 &&
           pad_w == 0;
  }
};

// floor(a / b) and ceil(a / b) for b > 0 and a of either sign.
inline int64_t conv_floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
inline int64_t conv_ceil_div(int64_t a, int64_t b) { return -conv_floor_div(-a, b); }
inline int64_t conv_max(int64_t a, int64_t b) { return a > b ? a : b; }

// Output columns summed per pass on the stack by the direct loops.
inline constexpr int64_t kConvRowTile = 256;

// Stores the row sums acc[0, count) in dst, converted to T.
template <typename T, typename Acc>
void conv_store_row(const Acc* acc, int64_t count, T* dst) {
  for (int64_t j = 0; j < count; ++j) {
    dst[j] = static_cast<T>(acc[j]);
  }
}

// Every output row of every (n, oc, od, oh), kConvRowTile columns [ow0, ow1) at a time,
// summed on the stack from bias[oc]: taps(n, oc, od, oh, ow0, ow1, acc) adds the tile's
// taps into acc[0, ow1 - ow0), which are then stored converted to T.
template <typename T, typename Taps>
void conv_each_row_tile(const ConvShape& s, const T* bias, T* out, Taps taps) {
  using Acc = acc_t<T>;
  Acc acc[kConvRowTile];
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t oc = 0; oc < s.out_channels; ++oc) {
      T* dst = out + (n * s.out_channels + oc) * s.out_d * s.out_h * s.out_w;
      const Acc b = bias != nullptr ? static_cast<Acc>(bias[oc]) : Acc(0);
      for (int64_t od = 0; od < s.out_d; ++od) {
        for (int64_t oh = 0; oh < s.out_h; ++oh) {
          for (int64_t ow0 = 0; ow0 < s.out_w; ow0 += kConvRowTile) {
            const int64_t ow1 = matmul_min(ow0 + kConvRowTile, s.out_w);
            for (int64_t j = 0; j < ow1 - ow0; ++j) {
              acc[j] = b;
            }
            taps(n, oc, od, oh, ow0, ow1, acc);
            conv_store_row(acc, ow1 - ow0, dst + (od * s.out_h + oh) * s.out_w + ow0);
          }
        }
      }
    }
  }
}

// out[n, oc, od, oh, ow] = bias[oc] + sum over (ic in oc's group, kd, kh, kw) of
// weight[oc, ic, kd, kh, kw] * in[n, ic, od * sd - pd + kd * dd, oh * sh - ph + kh * dh,
// ow * sw - pw + kw * dw], taps outside the input reading zero. Weight is
// [out_channels, cin_g, kd, kh, kw] (kd = 1 for 1-D and 2-D).
template <typename T>
void conv_direct(const ConvShape& s, const T* in, const T* weight, const T* bias, T* out) {
  using Acc = acc_t<T>;
  const int64_t cin_g = s.in_per_group();
  const int64_t cout_g = s.out_per_group();
  conv_each_row_tile(s, bias, out, [&](int64_t n, int64_t oc, int64_t od, int64_t oh,
                                       int64_t ow0, int64_t ow1, Acc* acc) {
    const T* src = in + (n * s.in_channels + (oc / cout_g) * cin_g) * s.in_volume();
    const T* w_oc = weight + oc * cin_g * s.kernel_volume();
    for (int64_t ic = 0; ic < cin_g; ++ic) {
      for (int64_t kd = 0; kd < s.kernel_d; ++kd) {
        const int64_t id = od * s.stride_d - s.pad_d + kd * s.dilation_d;
        if (id < 0 || id >= s.in_d) {
          continue;
        }
        for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
          const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dilation_h;
          if (ih < 0 || ih >= s.in_h) {
            continue;
          }
          const T* row = src + ic * s.in_volume() + (id * s.in_h + ih) * s.in_w;
          const T* w_row = w_oc + ((ic * s.kernel_d + kd) * s.kernel_h + kh) * s.kernel_w;
          for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
            // Output columns whose tap kw lands inside the row: 0 <= ow * sw + off < in_w.
            const int64_t off = kw * s.dilation_w - s.pad_w;
            const int64_t lo = conv_max(ow0, conv_ceil_div(-off, s.stride_w));
            const int64_t hi = matmul_min(ow1, conv_floor_div(s.in_w - 1 - off, s.stride_w) + 1);
            const Acc tap = static_cast<Acc>(w_row[kw]);
            if (s.stride_w == 1) {  // contiguous reads: the loop vectorizes
              for (int64_t ow = lo; ow < hi; ++ow) {
                acc[ow - ow0] += tap * static_cast<Acc>(row[ow + off]);
              }
            } else {
              for (int64_t ow = lo; ow < hi; ++ow) {
                acc[ow - ow0] += tap * static_cast<Acc>(row[ow * s.stride_w + off]);
              }
            }
          }
        }
      }
    }
  });
}

// The transposed convolution (the gradient of conv_direct() with respect to its input):
// input [n, in_channels, ih, iw] adds weight[ic, oc % cout_g, kh, kw] * in[n, ic, ih, iw]
// to out[n, oc, ih * sh - ph + kh * dh, iw * sw - pw + kw * dw] for the oc of ic's group,
// over bias[oc] (and likewise along the depth of a 3-D one). Weight is
// [in_channels, cout_g, kd, kh, kw]. Each output row gathers its
// taps, so the sums stay on the stack in the accumulation type.
template <typename T>
void conv_transposed_direct(const ConvShape& s, const T* in, const T* weight, const T* bias,
                            T* out) {
  using Acc = acc_t<T>;
  const int64_t cin_g = s.in_per_group();
  const int64_t cout_g = s.out_per_group();
  conv_each_row_tile(s, bias, out, [&](int64_t n, int64_t oc, int64_t od, int64_t oh,
                                       int64_t ow0, int64_t ow1, Acc* acc) {
    const int64_t g = oc / cout_g;
    const int64_t ocg = oc % cout_g;
    const T* src = in + (n * s.in_channels + g * cin_g) * s.in_volume();
    for (int64_t ic = 0; ic < cin_g; ++ic) {
      const T* w_ic = weight + ((g * cin_g + ic) * cout_g + ocg) * s.kernel_volume();
      for (int64_t kd = 0; kd < s.kernel_d; ++kd) {
        // Plane od takes input plane id when id * sd == od + pd - kd * dd.
        const int64_t td = od + s.pad_d - kd * s.dilation_d;
        if (td < 0 || td % s.stride_d != 0 || td / s.stride_d >= s.in_d) {
          continue;
        }
        for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
          // Row oh takes input row ih when ih * sh == oh + ph - kh * dh.
          const int64_t t = oh + s.pad_h - kh * s.dilation_h;
          if (t < 0 || t % s.stride_h != 0 || t / s.stride_h >= s.in_h) {
            continue;
          }
          const T* row =
              src + ic * s.in_volume() + ((td / s.stride_d) * s.in_h + t / s.stride_h) * s.in_w;
          for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
            // Column ow takes input column iw when iw * sw == ow + base.
            const int64_t base = s.pad_w - kw * s.dilation_w;
            const int64_t lo = conv_max(0, conv_ceil_div(ow0 + base, s.stride_w));
            const int64_t hi = matmul_min(s.in_w, conv_ceil_div(ow1 + base, s.stride_w));
            const Acc tap = static_cast<Acc>(w_ic[(kd * s.kernel_h + kh) * s.kernel_w + kw]);
            for (int64_t iw = lo; iw < hi; ++iw) {
              acc[iw * s.stride_w - base - ow0] += tap * static_cast<Acc>(row[iw]);
            }
          }
        }
      }
    }
  });
}

// Patch columns the panel (kMatmulPackBytes of scratch) can hold for a depth block of
// `kc`, in whole strips of NR; 0 when not even one strip fits.
template <typename Acc>
constexpr int64_t conv_panel_columns(int64_t kc) {
  return kMatmulPackBytes / static_cast<int64_t>(sizeof(Acc)) / (kc > 0 ? kc : 1) /
         kMatmulCols<Acc> * kMatmulCols<Acc>;
}

// Whether conv_gemm() runs this convolution: enough output channels per group to
// share each gathered patch, and (16-bit floats, which take the whole depth in one
// block) a depth the panel holds.
template <typename T>
bool conv_gemm_fits(const ConvShape& s) {
#if TL_MATMUL_BLOCKED
  using Acc = acc_t<T>;
  const int64_t depth = s.in_per_group() * s.kernel_h * s.kernel_w;
  const int64_t kc = is_same_v<Acc, T> ? matmul_min(depth, kMatmulDepth) : depth;
  return !s.volumetric() && s.out_per_group() >= kMatmulRows &&
         conv_panel_columns<Acc>(kc) > 0;
#else
  (void)s;
  return false;
#endif
}

// Gathers rows [pc, pc + kc) of one group's patch matrix (row k = (ic, kh, kw), column
// j = (oh, ow)), columns [jc, jc + nc), into `panel` as strips of NR columns, each kc x
// NR and contiguous; taps outside the input and columns past nc are zero. `src` is the
// group's first input plane.
template <typename T, typename Acc, int64_t NR>
void conv_pack(const ConvShape& s, const T* src, int64_t pc, int64_t kc, int64_t jc,
               int64_t nc, Acc* panel) {
  const int64_t in_plane = s.in_h * s.in_w;
  const int64_t taps = s.kernel_h * s.kernel_w;
  const bool pointwise = s.pointwise();
  for (int64_t j0 = 0; j0 < nc; j0 += NR, panel += kc * NR) {
    const int64_t nr = matmul_min(nc - j0, NR);
    const int64_t first = jc + j0;
    // Top-left input corner of each column's window (may lie in the padding).
    int64_t ih0[NR];
    int64_t iw0[NR];
    int64_t oh = first / s.out_w;
    int64_t ow = first % s.out_w;
    const bool one_row = nr == NR && ow + NR <= s.out_w;
    for (int64_t j = 0; j < nr; ++j) {
      ih0[j] = oh * s.stride_h - s.pad_h;
      iw0[j] = ow * s.stride_w - s.pad_w;
      if (++ow == s.out_w) {
        ow = 0;
        ++oh;
      }
    }
    // Row pc as (ic, kh, kw), then stepped like an odometer.
    int64_t ic = pc / taps;
    int64_t kh = (pc % taps) / s.kernel_w;
    int64_t kw = pc % s.kernel_w;
    for (int64_t k = 0; k < kc; ++k) {
      Acc* dst = panel + k * NR;
      const T* plane = src + ic * in_plane;
      if (pointwise) {  // column j reads element first + j of the plane
        for (int64_t j = 0; j < NR; ++j) {
          dst[j] = j < nr ? static_cast<Acc>(plane[first + j]) : Acc(0);
        }
      } else if (one_row) {  // one input row; no bounds checks away from the edges
        const int64_t ih = ih0[0] + kh * s.dilation_h;
        const int64_t iw = iw0[0] + kw * s.dilation_w;
        const int64_t sw = s.stride_w;
        if (ih < 0 || ih >= s.in_h) {
          for (int64_t j = 0; j < NR; ++j) {
            dst[j] = Acc(0);
          }
        } else if (iw >= 0 && iw + (NR - 1) * sw < s.in_w) {
          const T* row = plane + ih * s.in_w + iw;
          for (int64_t j = 0; j < NR; ++j) {
            dst[j] = static_cast<Acc>(row[j * sw]);
          }
        } else {
          const T* row = plane + ih * s.in_w;
          for (int64_t j = 0; j < NR; ++j) {
            const int64_t x = iw + j * sw;
            dst[j] = x >= 0 && x < s.in_w ? static_cast<Acc>(row[x]) : Acc(0);
          }
        }
      } else {
        for (int64_t j = 0; j < NR; ++j) {
          const int64_t ih = j < nr ? ih0[j] + kh * s.dilation_h : -1;
          const int64_t iw = j < nr ? iw0[j] + kw * s.dilation_w : -1;
          dst[j] = ih >= 0 && ih < s.in_h && iw >= 0 && iw < s.in_w
                       ? static_cast<Acc>(plane[ih * s.in_w + iw])
                       : Acc(0);
        }
      }
      if (++kw == s.kernel_w) {
        kw = 0;
        if (++kh == s.kernel_h) {
          kh = 0;
          ++ic;
        }
      }
    }
  }
}

// conv_direct()'s result as one matrix product per (batch, group), blocked like
// matmul_blocked(): column blocks of the output plane, depth blocks of the patch matrix
// gathered into the panel, then 4-row tiles of the group's weight against NR-column
// strips. Float and double accumulate in `out` across depth blocks; 16-bit floats take
// the whole depth at once (conv_gemm_fits() checks it fits) and go through `tile`. The
// panel takes kMatmulPackBytes of `scratch`; false, nothing written, when it has less.
template <typename T>
bool conv_gemm(KernelScratch& scratch, const ConvShape& s, const T* in, const T* weight,
               const T* bias, T* out) {
  using Acc = acc_t<T>;
  constexpr int64_t MR = kMatmulRows;
  constexpr int64_t NR = kMatmulCols<Acc>;
  constexpr int64_t kPackElems = kMatmulPackBytes / static_cast<int64_t>(sizeof(Acc));
  constexpr bool kSplitDepth = is_same_v<Acc, T>;
  const int64_t cin_g = s.in_per_group();
  const int64_t cout_g = s.out_per_group();
  const int64_t depth = cin_g * s.kernel_h * s.kernel_w;
  const int64_t plane = s.out_h * s.out_w;
  const int64_t kc_max = kSplitDepth ? matmul_min(depth, kMatmulDepth) : depth;
  const int64_t nc_max = conv_panel_columns<Acc>(kc_max);
  ScratchScope scope(scratch);
  Acc* panel = scratch.allocate<Acc>(kPackElems);
  if (panel == nullptr) return false;
  Acc tile[MR * NR];
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const T* a = weight + g * cout_g * depth;
      const T* src = in + (n * s.in_channels + g * cin_g) * s.in_h * s.in_w;
      const T* b = bias != nullptr ? bias + g * cout_g : nullptr;
      T* c_group = out + (n * s.out_channels + g * cout_g) * plane;
      for (int64_t jc = 0; jc < plane; jc += nc_max) {
        const int64_t nc = matmul_min(plane - jc, nc_max);
        for (int64_t pc = 0; pc < depth; pc += kc_max) {
          const int64_t kc = matmul_min(depth - pc, kc_max);
          conv_pack<T, Acc, NR>(s, src, pc, kc, jc, nc, panel);
          for (int64_t i0 = 0; i0 < cout_g; i0 += MR) {
            const int64_t mr = matmul_min(cout_g - i0, MR);
            for (int64_t j0 = 0; j0 < nc; j0 += NR) {
              const int64_t nr = matmul_min(nc - j0, NR);
              T* dst = c_group + i0 * plane + jc + j0;
              // A full tile of a float or double output accumulates in place: from the
              // bias written first, from zero, or from the earlier depth blocks' sums.
              bool load = true;
              bool direct = false;
              if constexpr (kSplitDepth) {
                if (mr == MR && nr == NR) {
                  direct = true;
                  if (pc == 0 && b == nullptr) {
                    load = false;
                  } else if (pc == 0) {
                    for (int64_t r = 0; r < MR; ++r) {
                      for (int64_t j = 0; j < NR; ++j) {
                        dst[r * plane + j] = b[i0 + r];
                      }
                    }
                  }
                }
              }
              if (!direct) {
                for (int64_t r = 0; r < MR; ++r) {
                  for (int64_t j = 0; j < NR; ++j) {
                    Acc v = Acc(0);
                    if (r < mr && j < nr) {
                      v = pc > 0 ? static_cast<Acc>(dst[r * plane + j])
                                 : (b != nullptr ? static_cast<Acc>(b[i0 + r]) : Acc(0));
                    }
                    tile[r * NR + j] = v;
                  }
                }
              }
              Acc* c = tile;
              int64_t ldc = NR;
              if constexpr (kSplitDepth) {
                if (direct) {
                  c = dst;
                  ldc = plane;
                }
              }
              matmul_micro<T, Acc, NR>(a + i0 * depth + pc, depth, mr, panel + j0 * kc, kc, c,
                                       ldc, load);
              if (!direct) {
                for (int64_t r = 0; r < mr; ++r) {
                  for (int64_t j = 0; j < nr; ++j) {
                    dst[r * plane + j] = static_cast<T>(tile[r * NR + j]);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return true;
}

}  // namespace tailor::native
