// 3x3 convolutions of stride 1 by Winograd's minimal filtering F(2x2, 3x3), for
// kernels/optimized/op_convolution.cpp.
//
// Each 2x2 block of output (a tile) is A^T [(G g G^T) * (B^T d B)] A, where g is a 3x3
// filter, d the 4x4 input patch under the tile, and * an elementwise product: 16
// multiplies a tile and input channel instead of 36. Summed over input channels, the 16
// elementwise products become 16 GEMMs (util/gemm.h), one per position xi of the 4x4:
//
//   M[xi][oc, tile] = U[xi][oc, ic] @ V[xi][ic, tile],   U = G g G^T, V = B^T d B
//
// 2.25x fewer multiply-adds than im2col's product, and no patch gather: the transforms read
// the input and write the output once. Work goes by bands of whole tile rows (their V stays
// in L2), and within a band by blocks of 64 output channels (their U). With the filters
// transformed at load and few tiles, the products are streamed instead
// (winograd_streamed(): U the GEMM's packed b, one band). Everything lives in the calling
// thread's scratch (kConvWinogradScratchBytes); a shape whose band of one tile row would
// not fit goes to im2col instead. The transforms take no multiplies in B and A (only adds),
// halves in G: on small integer values the result is exact, as im2col's.
#pragma once

#include "kernels/optimized/util/gemm.h"
#include "kernels/optimized/util/gemm_ukernel.h"
#include "kernels/optimized/util/vec.h"
#include "kernels/portable/util/conv.h"
#include "runtime/kernel/prepack.h"

namespace tailor::optimized {

// Floats of scratch a convolution may take for U, V, M (VT and MT streamed) and the
// input rows (4 MB: one
// band holds a 14x14 output of 256 channels, so each filter is transformed once), the
// GEMM's own on top.
inline constexpr int64_t kWinogradFloats = 1024 * 1024;
// Output channels a U block holds (two strips of the AVX-512 tile's rows... the GEMM's m).
inline constexpr int64_t kWinogradChannelBlock = 64;
// Tiles a band holds at most: each GEMM's V[xi] and M[xi] stay in L2.
inline constexpr int64_t kWinogradMaxTiles = 256;
// Slack after each row of V, M and the input rows: a vector of 16 lanes past the end of a
// tile row reads zeros or writes what the next row overwrites.
inline constexpr int64_t kWinogradSlack = 16;

inline constexpr size_t kConvWinogradScratchBytes =
    kWinogradFloats * sizeof(float) + 4 * KernelScratch::kAlignment + kGemmScratchBytes;

// How one convolution is cut: the tile size, tile rows per band and the floats of each
// buffer.
struct WinogradPlan {
  int64_t tile = 2;                  // outputs a tile spans each way: F(2x2, 3x3) or F(4x4, 3x3)
  int64_t planes = 16;               // positions xi of a tile's transform: (tile + 2)^2
  int64_t tiles_h = 0, tiles_w = 0;  // tiles down and across the output
  int64_t band = 0;                  // tile rows per band; 0: the shape does not fit
  int64_t ld = 0;                    // row stride of V and M (a band's tiles + slack)
  int64_t v_step = 0, m_step = 0;    // floats from V[xi] to V[xi + 1], M[xi] to M[xi + 1]
  int64_t channel_block = 0;         // output channels per U block
  int64_t row_ld = 0;                // row stride of the split input rows
  int64_t split_floats = 0;          // a thread's split input rows (WinogradInput)
  bool streamed = false;             // products by winograd_streamed()
};

// Tiles at most for which filters transformed at load are streamed (winograd_streamed()).
inline constexpr int64_t kWinogradStreamMaxTiles = 64;

// The plan of winograd_streamed() for `s` (one band of every tile, its V and M sharing
// one buffer, VT and MT beside them), when its scratch fits.
inline bool winograd_streamed_plan(const tailor::native::ConvShape& s, WinogradPlan* plan) {
  WinogradPlan& p = *plan;
  const int64_t tiles = p.tiles_h * p.tiles_w;
  if (tiles > kWinogradStreamMaxTiles) return false;
  const int64_t cin = s.in_channels, cout = s.out_channels;
  const int64_t wide = cin > cout ? cin : cout;
  const int64_t ld = (tiles + kWinogradSlack - 1) / kWinogradSlack * kWinogradSlack +
                     kWinogradSlack;
  const int64_t step = wide * ld + kWinogradSlack;  // a line past whole rows, as below
  const int64_t floats = p.planes * (step + tiles * (cin + cout)) + p.split_floats;
  if (floats > kWinogradFloats) return false;
  p.band = p.tiles_h;
  p.ld = ld;
  p.v_step = p.m_step = step;
  p.channel_block = cout;
  p.streamed = true;
  return true;
}

// The floats of a thread's split input rows for a band of `band` tile rows: each input
// row as `tile` runs of its columns (one per column modulo the tile), and for F(4x4)
// the row's even and odd columns first (WinogradInput4).
inline int64_t winograd_split_floats(int64_t tile, int64_t band, int64_t row_ld) {
  return (tile * band + 2) * tile * row_ld + (tile == 4 ? 4 * row_ld : 0);
}

/// The plan of F(tile x tile, 3x3) for `s`. `packed_u`: the filters were transformed at
/// load (winograd_packed_u()), so no U block takes scratch; `streamed`: in
/// winograd_streamed()'s layout. Band 0 when the shape does not fit.
inline WinogradPlan winograd_tile_plan(const tailor::native::ConvShape& s, int64_t tile,
                                       bool packed_u, bool streamed) {
  WinogradPlan p;
  p.tile = tile;
  p.planes = (tile + 2) * (tile + 2);
  p.tiles_h = (s.out_h + tile - 1) / tile;
  p.tiles_w = (s.out_w + tile - 1) / tile;
  p.channel_block = gemm_min(s.out_channels, kWinogradChannelBlock);
  p.row_ld = p.tiles_w + 1 + kWinogradSlack;
  if (streamed) {
    p.split_floats = winograd_split_floats(tile, p.tiles_h, p.row_ld);
    winograd_streamed_plan(s, &p);
    return p;
  }
  const int64_t cin = s.in_channels;
  for (int64_t band = gemm_min(p.tiles_h, kWinogradMaxTiles / p.tiles_w); band >= 1; --band) {
    // Whole strips of the GEMM (its row_slack), then a vector's slack for the transforms.
    const int64_t ld = (band * p.tiles_w + kGemmMaxNr - 1) / kGemmMaxNr * kGemmMaxNr +
                       kWinogradSlack;
    const int64_t split = winograd_split_floats(tile, band, p.row_ld);
    const int64_t floats =
        (packed_u ? 0 : p.planes * p.channel_block * cin)                        // U
        + p.planes * ((cin + p.channel_block) * ld + 2 * kWinogradSlack) + split;  // V, M
    if (floats <= kWinogradFloats) {
      p.band = band;
      p.ld = ld;
      p.split_floats = split;
      // A line apart past whole rows: with 64 channels and rows of 16k floats, the 16
      // planes lay a multiple of 4 KB apart, on the same L1 sets, and the transforms that
      // write or read all 16 at once ran 1.5x slower.
      p.v_step = cin * ld + kWinogradSlack;
      p.m_step = p.channel_block * ld + kWinogradSlack;
      break;
    }
  }
  return p;
}

// F(4x4, 3x3) takes an output once F(2x2, 3x3) would need more tiles than this: 36
// products for 16 outputs of a tile against 16 for 4, 1.78x fewer multiply-adds again, for
// larger transforms, filters 4x their size transformed against 1.78x, and sums rounded
// more (its transforms scale by up to 8 and 1/24; F(2x2) exact on small integers).
inline constexpr int64_t kWinogradF4MinTiles = 64;

/// The plan of `s`: F(4x4, 3x3) for a large output when it fits, else F(2x2, 3x3).
/// `packed_u`, `streamed`: as winograd_tile_plan()'s.
inline WinogradPlan winograd_plan(const tailor::native::ConvShape& s, bool packed_u = false,
                                  bool streamed = false) {
  if ((s.out_h + 1) / 2 * ((s.out_w + 1) / 2) > kWinogradF4MinTiles) {
    const WinogradPlan p = winograd_tile_plan(s, 4, packed_u, streamed);
    if (p.band > 0) return p;
  }
  return winograd_tile_plan(s, 2, packed_u, streamed);
}

// Tiles an output needs at least: each filter's transform serves that many tiles. With
// the filters transformed per call, 7x7 outputs (16 tiles) of 512 channels took twice
// im2col's time (ResNet-18's last stage, AVX-512); transformed at load, 16 tiles fill an
// AVX2 strip of the GEMM and Winograd wins from there (that layer 3.3 -> 1.85 ms, AVX2).
inline constexpr int64_t kWinogradMinTiles = 32;
inline constexpr int64_t kWinogradPackedMinTiles = 16;

// Input channels at most: a U block of 64 filters then takes 1 MB of the scratch, and a
// band several tile rows. With the filters transformed at load no U block takes scratch:
// up to 512 input channels fit a band of one row of at most 96 tiles.
// backends/xnnpack/policy.py's winograd_fits() keeps the packed rule
// (tests/backends/test_xnnpack_parity.py compares the two).
inline constexpr int64_t kWinogradMaxInChannels = 256;
inline constexpr int64_t kWinogradPackedMaxInChannels = 512;
inline constexpr int64_t kWinogradPackedMaxTilesW = 96;

/// Whether Winograd serves `s`: a 3x3 filter, stride and dilation 1, one group, 32 or
/// more input and output channels, and tiles enough, for the transforms to cost little
/// against the products; up to 256 input channels, or 512 with `packed_u` and rows of
/// 96 tiles at most.
inline bool winograd_fits(const tailor::native::ConvShape& s, bool packed_u = false) {
  const int64_t tiles_w = (s.out_w + 1) / 2, tiles = (s.out_h + 1) / 2 * tiles_w;
  const bool sized =
      packed_u ? tiles >= kWinogradPackedMinTiles &&
                     (s.in_channels <= kWinogradMaxInChannels ||
                      (s.in_channels <= kWinogradPackedMaxInChannels &&
                       tiles_w <= kWinogradPackedMaxTilesW))
               : tiles >= kWinogradMinTiles && s.in_channels <= kWinogradMaxInChannels;
  return s.kernel_h == 3 && s.kernel_w == 3 && s.stride_h == 1 && s.stride_w == 1 &&
         s.dilation_h == 1 && s.dilation_w == 1 && s.groups == 1 && s.in_channels >= 32 &&
         s.out_channels >= 32 && sized && winograd_tile_plan(s, 2, packed_u, false).band > 0;
}

// u = G g G^T of one 3x3 filter g (row-major) for F(2x2, 3x3), on floats or on vectors
// of filters: G's rows are (1 0 0), (1/2 1/2 1/2), (1/2 -1/2 1/2), (0 0 1).
template <typename T>
TL_VEC_INLINE void winograd_filter_f2(const T (&g)[9], T (&u)[16]) {
  T p[4][3];  // G g
  TL_GEMM_UNROLL
  for (int j = 0; j < 3; ++j) {
    const T outer = g[j] + g[6 + j];
    p[0][j] = g[j];
    p[1][j] = 0.5f * (outer + g[3 + j]);
    p[2][j] = 0.5f * (outer - g[3 + j]);
    p[3][j] = g[6 + j];
  }
  TL_GEMM_UNROLL
  for (int i = 0; i < 4; ++i) {  // (G g) G^T
    const T outer = p[i][0] + p[i][2];
    u[4 * i + 0] = p[i][0];
    u[4 * i + 1] = 0.5f * (outer + p[i][1]);
    u[4 * i + 2] = 0.5f * (outer - p[i][1]);
    u[4 * i + 3] = p[i][2];
  }
}

// The same for F(4x4, 3x3): G's rows are (1/4 0 0), -(1/6 1/6 1/6), -(1/6 -1/6 1/6),
// (1/24 1/12 1/6), (1/24 -1/12 1/6), (0 0 1) (interpolation points 0, -1, 1, 2, -2).
template <typename T>
TL_VEC_INLINE void winograd_filter_f4(const T (&g)[9], T (&u)[36]) {
  // (G x) of one column x = (x0, x1, x2) of taps.
  const auto column = [](const T& x0, const T& x1, const T& x2, T* out) {
    const T outer = x0 + x2;
    const T quarter = (1.0f / 24) * x0 + (1.0f / 6) * x2;
    out[0] = 0.25f * x0;
    out[1] = (-1.0f / 6) * (outer + x1);
    out[2] = (-1.0f / 6) * (outer - x1);
    out[3] = quarter + (1.0f / 12) * x1;
    out[4] = quarter - (1.0f / 12) * x1;
    out[5] = x2;
  };
  T p[3][6];  // (G g)^T: p[j] is G times column j of g
  TL_GEMM_UNROLL
  for (int j = 0; j < 3; ++j) column(g[j], g[3 + j], g[6 + j], p[j]);
  TL_GEMM_UNROLL
  for (int i = 0; i < 6; ++i) column(p[0][i], p[1][i], p[2][i], u + 6 * i);  // (G g) G^T
}

// U[o][xi][ic] = (G g G^T)[xi] for output channels [oc0, oc0 + count) of `weight`
// ([out][in][3][3]), for the plan's tile (planes positions xi). By vectors across W
// input channels: W filters (9 floats each) are loaded as W vectors of W and transposed,
// so that vector t holds tap t of each (copied lane by lane through an array, the taps
// cost 4x the time; AVX-512's gather instruction is slower still on Zen 4). A filter's
// rows lie together (the GEMM reads rows of U planes * cin apart): as rows far apart, the
// stores ran at a third of the convolution's time. The small loops unroll so that the
// vectors stay in registers.
struct WinogradFilters {
  template <int W>
  TL_VEC_INLINE static void run(const float* weight, int64_t cin, int64_t oc0, int64_t count,
                                int64_t tile, float* u) {
    const int64_t planes = (tile + 2) * (tile + 2);
    // Loads of W floats from each filter: (9 + W - 1) / W of them, the last reading into
    // the next filter (unused lanes), so the block's end must stay inside the weights.
    constexpr int kGroups = (9 + W - 1) / W;
    const float* end = weight + (oc0 + count) * cin * 9;
    for (int64_t o = 0; o < count; ++o) {
      const float* filters = weight + (oc0 + o) * cin * 9;
      for (int64_t ic = 0; ic < cin; ic += W) {
        const int64_t lanes = gemm_min(W, cin - ic);
        const float* block = filters + ic * 9;
        VecF<W> g[9];
        if (lanes == W && block + 9 * (W - 1) + kGroups * W <= end) {
          TL_GEMM_UNROLL
          for (int c = 0; c < kGroups; ++c) {
            VecF<W> rows[W];
            TL_GEMM_UNROLL
            for (int l = 0; l < W; ++l) vec_load<W>(block + 9 * l + c * W, rows[l]);
            vec_transpose<W>(rows);
            TL_GEMM_UNROLL
            for (int t = 0; t < W; ++t) {
              if (c * W + t < 9) g[c * W + t] = rows[t];
            }
          }
        } else {
          for (int t = 0; t < 9; ++t) {
            g[t] = VecF<W>{};
            for (int64_t l = 0; l < lanes; ++l) g[t][l] = block[9 * l + t];
          }
        }
        float* dst = u + o * planes * cin + ic;
        const auto store = [&](const VecF<W>* t) {
          for (int64_t xi = 0; xi < planes; ++xi) {
            if (lanes == W) {
              vec_store<W>(dst + xi * cin, t[xi]);
            } else {
              vec_store_partial<W>(dst + xi * cin, lanes, t[xi]);
            }
          }
        };
        if (tile == 4) {
          VecF<W> t[36];
          winograd_filter_f4(g, t);
          store(t);
        } else {
          VecF<W> t[16];
          winograd_filter_f2(g, t);
          store(t);
        }
      }
    }
  }
};

// V[xi][ic][q * tiles_w + tx] = (B^T d B)[xi] for the tiles of one band (tile rows
// [ty0, ty0 + rows)) and `channels` input channels from src's first; B^T's rows are
// (1 0 -1 0), (0 1 1 0), (0 -1 1 0), (0 1 0 -1). Each input row the band reads is first
// split into its even and odd columns (zeros in the padding), so that tile tx's four
// columns are even[tx], odd[tx], even[tx + 1], odd[tx + 1]: vectors across W tiles are
// contiguous loads.
struct WinogradInput {
  // dst[e] = row[2 * e + first] for e < count, zeros outside the row's `width` columns
  // (and everywhere for a row of the padding, nullptr).
  template <int W>
  TL_VEC_INLINE static void split_columns(const float* row, int64_t width, int64_t first,
                                          int64_t count, float* dst) {
    using tailor::native::conv_ceil_div;
    int64_t lo = count, hi = count;
    if (row != nullptr) {
      lo = gemm_min(count, first >= 0 ? 0 : conv_ceil_div(-first, 2));
      hi = gemm_min(count, conv_ceil_div(width - first, 2));
      hi = hi < lo ? lo : hi;
    }
    vec_fill<W>(dst, lo, 0.0f);
    if (hi > lo) {
      const int64_t col = 2 * lo + first;
      vec_copy_every<W>(row + col, 2, width - col, dst + lo, hi - lo);
    }
    vec_fill<W>(dst + hi, count - hi, 0.0f);
  }

  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const WinogradPlan* plan,
                                const float* src, int64_t channels, int64_t ty0, int64_t rows,
                                float* split, float* v) {
    const tailor::native::ConvShape& s = *shape;
    const WinogradPlan& p = *plan;
    const int64_t xi_step = p.v_step;
    const int64_t in_rows = 2 * rows + 2;
    for (int64_t ic = 0; ic < channels; ++ic) {
      const float* plane = src + ic * s.in_h * s.in_w;
      for (int64_t r = 0; r < in_rows; ++r) {
        const int64_t ih = 2 * ty0 + r - s.pad_h;
        const float* row = ih >= 0 && ih < s.in_h ? plane + ih * s.in_w : nullptr;
        float* even = split + 2 * r * p.row_ld;
        split_columns<W>(row, s.in_w, -s.pad_w, p.row_ld, even);
        split_columns<W>(row, s.in_w, 1 - s.pad_w, p.row_ld, even + p.row_ld);
      }
      float* dst = v + ic * p.ld;
      for (int64_t q = 0; q < rows; ++q) {
        for (int64_t tx = 0; tx < p.tiles_w; tx += W) {
          VecF<W> t[4][4];  // B^T d, row by row of d
          VecF<W> d[4][4];
          TL_GEMM_UNROLL
          for (int i = 0; i < 4; ++i) {
            const float* even = split + 2 * (2 * q + i) * p.row_ld + tx;
            const float* odd = even + p.row_ld;
            vec_load<W>(even, d[i][0]);
            vec_load<W>(odd, d[i][1]);
            vec_load<W>(even + 1, d[i][2]);
            vec_load<W>(odd + 1, d[i][3]);
          }
          TL_GEMM_UNROLL
          for (int j = 0; j < 4; ++j) {
            t[0][j] = d[0][j] - d[2][j];
            t[1][j] = d[1][j] + d[2][j];
            t[2][j] = d[2][j] - d[1][j];
            t[3][j] = d[1][j] - d[3][j];
          }
          float* out = dst + q * p.tiles_w + tx;
          TL_GEMM_UNROLL
          for (int i = 0; i < 4; ++i) {  // (B^T d) B
            vec_store<W>(out + (4 * i + 0) * xi_step, t[i][0] - t[i][2]);
            vec_store<W>(out + (4 * i + 1) * xi_step, t[i][1] + t[i][2]);
            vec_store<W>(out + (4 * i + 2) * xi_step, t[i][2] - t[i][1]);
            vec_store<W>(out + (4 * i + 3) * xi_step, t[i][1] - t[i][3]);
          }
        }
      }
    }
  }
};

// out[oc0 + o] rows 2 * ty0 ... of the band = A^T M[.][o] A (+ bias), for `count` output
// channels; A^T's rows are (1 1 1 0), (0 1 -1 -1). The two columns of each tile row are
// interleaved into one row of output; the last tile's columns and rows past the output
// (an odd size) are not stored.
struct WinogradOutput {
  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const WinogradPlan* plan,
                                const float* m, int64_t count, int64_t ty0, int64_t rows,
                                const float* bias, float* dst) {
    const tailor::native::ConvShape& s = *shape;
    const WinogradPlan& p = *plan;
    const int64_t xi_step = p.m_step;
    const int64_t plane = s.out_h * s.out_w;
    for (int64_t o = 0; o < count; ++o) {
      const float b = bias != nullptr ? bias[o] : 0.0f;
      for (int64_t q = 0; q < rows; ++q) {
        const int64_t oh = 2 * (ty0 + q);
        float* row0 = dst + o * plane + oh * s.out_w;
        float* row1 = oh + 1 < s.out_h ? row0 + s.out_w : nullptr;
        for (int64_t tx = 0; tx < p.tiles_w; tx += W) {
          const float* src = m + o * p.ld + q * p.tiles_w + tx;
          VecF<W> x[4][4];
          TL_GEMM_UNROLL
          for (int xi = 0; xi < 16; ++xi) vec_load<W>(src + xi * xi_step, x[xi / 4][xi % 4]);
          VecF<W> a[2][4];  // A^T M
          TL_GEMM_UNROLL
          for (int j = 0; j < 4; ++j) {
            a[0][j] = x[0][j] + x[1][j] + x[2][j];
            a[1][j] = x[1][j] - x[2][j] - x[3][j];
          }
          const int64_t cols = gemm_min(2 * W, s.out_w - 2 * tx);
          TL_GEMM_UNROLL
          for (int i = 0; i < 2; ++i) {  // (A^T M) A
            float* row = i == 0 ? row0 : row1;
            if (row == nullptr) break;
            const VecF<W> left = a[i][0] + a[i][1] + a[i][2] + b;
            const VecF<W> right = a[i][1] - a[i][2] - a[i][3] + b;
            VecF<W> lo, hi;
            vec_interleave<W>(left, right, lo, hi);
            float* out = row + 2 * tx;
            if (cols == 2 * W) {
              vec_store<W>(out, lo);
              vec_store<W>(out + W, hi);
            } else {
              vec_store_partial<W>(out, gemm_min(cols, W), lo);
              if (cols > W) vec_store_partial<W>(out + W, cols - W, hi);
            }
          }
        }
      }
    }
  }
};

// F(4x4, 3x3)'s V[xi][ic][q * tiles_w + tx] = (B^T d B)[xi] for d the 6x6 input patch
// of each tile, as WinogradInput's; B^T's rows are (4 0 -5 0 1 0), (0 -4 -4 1 1 0),
// (0 4 -4 -1 1 0), (0 -2 -1 2 1 0), (0 2 -1 -2 1 0), (0 4 0 -5 0 1). Each input row is
// split into its columns modulo 4 (its even and odd columns, then each of those in turn),
// so that tile tx's six columns are runs 0 to 3 at tx, then runs 0 and 1 at tx + 1.
struct WinogradInput4 {
  // B^T x of one column x of six values (vectors of W tiles), into out.
  template <int W>
  TL_VEC_INLINE static void transform(const VecF<W> (&x)[6], VecF<W> (&out)[6]) {
    const VecF<W> a = x[4] - 4.0f * x[2], b = x[3] - 4.0f * x[1];
    const VecF<W> c = x[4] - x[2], d = 2.0f * (x[3] - x[1]);
    out[0] = 4.0f * x[0] - 5.0f * x[2] + x[4];
    out[1] = a + b;
    out[2] = a - b;
    out[3] = c + d;
    out[4] = c - d;
    out[5] = 4.0f * x[1] - 5.0f * x[3] + x[5];
  }

  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const WinogradPlan* plan,
                                const float* src, int64_t channels, int64_t ty0, int64_t rows,
                                float* split, float* v) {
    const tailor::native::ConvShape& s = *shape;
    const WinogradPlan& p = *plan;
    const int64_t ld = p.row_ld, in_rows = 4 * rows + 2;
    float* halves = split + 4 * in_rows * ld;  // a row's even, then odd columns
    for (int64_t ic = 0; ic < channels; ++ic) {
      const float* plane = src + ic * s.in_h * s.in_w;
      for (int64_t r = 0; r < in_rows; ++r) {
        const int64_t ih = 4 * ty0 + r - s.pad_h;
        const float* row = ih >= 0 && ih < s.in_h ? plane + ih * s.in_w : nullptr;
        WinogradInput::split_columns<W>(row, s.in_w, -s.pad_w, 2 * ld, halves);
        WinogradInput::split_columns<W>(row, s.in_w, 1 - s.pad_w, 2 * ld, halves + 2 * ld);
        float* runs = split + 4 * r * ld;  // run k: columns 4e + k - pad_w
        for (int k = 0; k < 4; ++k) {
          const float* half = halves + (k % 2) * 2 * ld + k / 2;
          vec_copy_every<W>(half, 2, 2 * ld - k / 2, runs + k * ld, ld);
        }
      }
      float* dst = v + ic * p.ld;
      for (int64_t q = 0; q < rows; ++q) {
        for (int64_t tx = 0; tx < p.tiles_w; tx += W) {
          VecF<W> t[6][6];  // B^T d: t[j] is B^T times column j of d
          TL_GEMM_UNROLL
          for (int j = 0; j < 6; ++j) {
            VecF<W> x[6];
            TL_GEMM_UNROLL
            for (int i = 0; i < 6; ++i) {
              vec_load<W>(split + (4 * (4 * q + i) + j % 4) * ld + tx + j / 4, x[i]);
            }
            transform<W>(x, t[j]);
          }
          float* out = dst + q * p.tiles_w + tx;
          TL_GEMM_UNROLL
          for (int i = 0; i < 6; ++i) {  // (B^T d) B
            const VecF<W> x[6] = {t[0][i], t[1][i], t[2][i], t[3][i], t[4][i], t[5][i]};
            VecF<W> y[6];
            transform<W>(x, y);
            TL_GEMM_UNROLL
            for (int j = 0; j < 6; ++j) vec_store<W>(out + (6 * i + j) * p.v_step, y[j]);
          }
        }
      }
    }
  }
};

// F(4x4, 3x3)'s output: out rows 4 * ty0 ... = A^T M A (+ bias), as WinogradOutput's;
// A^T's rows are (1 1 1 1 1 0), (0 1 -1 2 -2 0), (0 1 1 4 4 0), (0 1 -1 8 -8 1). A tile
// row's four columns are interleaved into one row of output.
struct WinogradOutput4 {
  // A^T x of one column x of six values, into out.
  template <int W>
  TL_VEC_INLINE static void transform(const VecF<W> (&x)[6], VecF<W> (&out)[4]) {
    const VecF<W> s12 = x[1] + x[2], d12 = x[1] - x[2];
    const VecF<W> s34 = x[3] + x[4], d34 = x[3] - x[4];
    out[0] = x[0] + s12 + s34;
    out[1] = d12 + 2.0f * d34;
    out[2] = s12 + 4.0f * s34;
    out[3] = d12 + 8.0f * d34 + x[5];
  }

  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const WinogradPlan* plan,
                                const float* m, int64_t count, int64_t ty0, int64_t rows,
                                const float* bias, float* dst) {
    const tailor::native::ConvShape& s = *shape;
    const WinogradPlan& p = *plan;
    const int64_t plane = s.out_h * s.out_w;
    for (int64_t o = 0; o < count; ++o) {
      const float b = bias != nullptr ? bias[o] : 0.0f;
      for (int64_t q = 0; q < rows; ++q) {
        const int64_t oh = 4 * (ty0 + q);
        const int64_t out_rows = gemm_min(4, s.out_h - oh);
        float* row0 = dst + o * plane + oh * s.out_w;
        for (int64_t tx = 0; tx < p.tiles_w; tx += W) {
          const float* src = m + o * p.ld + q * p.tiles_w + tx;
          VecF<W> a[6][4];  // A^T M: a[j] is A^T times column j of M
          TL_GEMM_UNROLL
          for (int j = 0; j < 6; ++j) {
            VecF<W> x[6];
            TL_GEMM_UNROLL
            for (int i = 0; i < 6; ++i) vec_load<W>(src + (6 * i + j) * p.m_step, x[i]);
            transform<W>(x, a[j]);
          }
          const int64_t cols = gemm_min(4 * W, s.out_w - 4 * tx);
          for (int64_t i = 0; i < out_rows; ++i) {  // (A^T M) A
            const VecF<W> x[6] = {a[0][i], a[1][i], a[2][i], a[3][i], a[4][i], a[5][i]};
            VecF<W> c[4];
            transform<W>(x, c);
            VecF<W> lo02, hi02, lo13, hi13, out[4];
            vec_interleave<W>(c[0] + b, c[2] + b, lo02, hi02);
            vec_interleave<W>(c[1] + b, c[3] + b, lo13, hi13);
            vec_interleave<W>(lo02, lo13, out[0], out[1]);
            vec_interleave<W>(hi02, hi13, out[2], out[3]);
            float* row = row0 + i * s.out_w + 4 * tx;
            TL_GEMM_UNROLL
            for (int k = 0; k < 4; ++k) {
              const int64_t left = cols - k * W;
              if (left >= W) {
                vec_store<W>(row + k * W, out[k]);
              } else if (left > 0) {
                vec_store_partial<W>(row + k * W, left, out[k]);
              }
            }
          }
        }
      }
    }
  }
};

// The transforms of a plan's tile, over vectors (vec_run): WinogradInput and
// WinogradOutput for F(2x2), WinogradInput4 and WinogradOutput4 for F(4x4).
inline void winograd_input(const tailor::native::ConvShape& s, const WinogradPlan& p,
                           const float* src, int64_t channels, int64_t ty0, int64_t rows,
                           float* split, float* v) {
  if (p.tile == 4) {
    vec_run<WinogradInput4>(&s, &p, src, channels, ty0, rows, split, v);
  } else {
    vec_run<WinogradInput>(&s, &p, src, channels, ty0, rows, split, v);
  }
}

inline void winograd_output(const tailor::native::ConvShape& s, const WinogradPlan& p,
                            const float* m, int64_t count, int64_t ty0, int64_t rows,
                            const float* bias, float* dst) {
  if (p.tile == 4) {
    vec_run<WinogradOutput4>(&s, &p, m, count, ty0, rows, bias, dst);
  } else {
    vec_run<WinogradOutput>(&s, &p, m, count, ty0, rows, bias, dst);
  }
}

// Every filter transformed once at method load (runtime/kernel/prepack.h): a header
// naming the weights, their shape, the tile and the layout, then U for all output
// channels. Most shapes take it as WinogradFilters writes a block of them,
// [out][planes][in]; a streamed plan (winograd_streamed()) takes U[xi] transposed,
// [in][out], as the GEMM's packed b (util/gemm_prepack.h: depth blocks of strips `nr`
// wide) for each xi in turn. The transform otherwise runs on every call (for every band
// when the outputs take several blocks).
struct WinogradPackedU {
  uint32_t magic;
  int64_t in_channels;
  int64_t out_channels;
  int64_t tile;  // 2 or 4: F(2x2, 3x3) or F(4x4, 3x3)
  int64_t nr;    // the strips' width of a streamed layout; 0: [out][planes][in]
  const float* source;
};
inline constexpr uint32_t kWinogradPackedUMagic = 0x55474e57;  // "WNGU"
inline constexpr size_t kWinogradPackedUHeader = kPrepackAlignment;
static_assert(sizeof(WinogradPackedU) <= kWinogradPackedUHeader, "the header fits its line");

/// Filters transformed at load, as a call finds them (winograd_packed_u()): U, the tile
/// and whether its plan is streamed.
struct WinogradPacked {
  const float* u = nullptr;
  int64_t tile = 2;
  bool streamed = false;
};

// The plan filters transformed at load for `s` take: streamed when it fits.
inline WinogradPlan winograd_packed_plan(const tailor::native::ConvShape& s) {
  const WinogradPlan p = winograd_plan(s, true, true);
  return p.band > 0 ? p : winograd_plan(s, true, false);
}

/// Bytes of the transformed filters of `s` (a 3x3 weight [out][in][3][3]).
inline size_t winograd_packed_u_bytes(const tailor::native::ConvShape& s) {
  const WinogradPlan p = winograd_packed_plan(s);
  const int64_t width = p.streamed
                            ? gemm_packed_width(s.out_channels, gemm_micro_kernels(cpu_level()).nr)
                            : s.out_channels;
  return kWinogradPackedUHeader +
         static_cast<size_t>(p.planes * width * s.in_channels) * sizeof(float);
}

inline void winograd_pack_u(const tailor::native::ConvShape& s, const float* weight,
                            void* packed) {
  const WinogradPlan p = winograd_packed_plan(s);
  const int64_t cin = s.in_channels, cout = s.out_channels;
  const int64_t nr = p.streamed ? gemm_micro_kernels(cpu_level()).nr : 0;
  WinogradPackedU header{kWinogradPackedUMagic, cin, cout, p.tile, nr, weight};
  __builtin_memcpy(packed, &header, sizeof(header));
  float* u = reinterpret_cast<float*>(static_cast<uint8_t*>(packed) + kWinogradPackedUHeader);
  if (!p.streamed) {
    vec_run<WinogradFilters>(weight, cin, int64_t{0}, cout, p.tile, u);
    return;
  }
  // U[xi][o, ic] where gemm_pack_whole_b() would put b[ic, o] of b = U[xi]^T: depth
  // block pc, strip o / nr, row ic - pc, lane o % nr; the lanes past cout stay zeros.
  const int64_t width = gemm_packed_width(cout, nr), kc_max = gemm_min(cin, kGemmDepth);
  __builtin_memset(u, 0, static_cast<size_t>(p.planes * width * cin) * sizeof(float));
  for (int64_t o = 0; o < cout; ++o) {
    for (int64_t ic = 0; ic < cin; ++ic) {
      float g[9], t[36];
      __builtin_memcpy(g, weight + (o * cin + ic) * 9, sizeof(g));
      if (p.tile == 4) {
        winograd_filter_f4(g, t);
      } else {
        float t2[16];
        winograd_filter_f2(g, t2);
        __builtin_memcpy(t, t2, sizeof(t2));
      }
      const int64_t pc = ic / kc_max * kc_max, kc = gemm_min(cin - pc, kc_max);
      float* dst = u + pc * width + o / nr * kc * nr + (ic - pc) * nr + o % nr;
      for (int64_t xi = 0; xi < p.planes; ++xi) dst[xi * width * cin] = t[xi];
    }
  }
}

/// The filters of `packed` (KernelContext::packed()) when it holds `weight` transformed
/// for `s`, else none (u nullptr: they are transformed per call). A copy made for the
/// planned sizes serves a call of other sizes (a dynamic dimension) in its own tile and
/// layout when its plan fits them.
inline WinogradPacked winograd_packed_u(const void* packed, const tailor::native::ConvShape& s,
                                        const float* weight) {
  if (packed == nullptr) return {};
  WinogradPackedU header;
  __builtin_memcpy(&header, packed, sizeof(header));
  if (header.magic != kWinogradPackedUMagic || header.in_channels != s.in_channels ||
      header.out_channels != s.out_channels || header.source != weight ||
      (header.tile != 2 && header.tile != 4) ||
      (header.nr != 0 && header.nr != gemm_micro_kernels(cpu_level()).nr) ||
      winograd_tile_plan(s, header.tile, true, header.nr != 0).band == 0) {
    return {};
  }
  return {reinterpret_cast<const float*>(static_cast<const uint8_t*>(packed) +
                                         kWinogradPackedUHeader),
          header.tile, header.nr != 0};
}

// dst[j * ld_dst + i] = src[i * ld_src + j] for i < rows, j < cols: blocks of W x W by
// vectors (vec_transpose), the edges one float at a time; then zeros for rows <= i <
// width in each row of dst.
struct WinogradTranspose {
  template <int W>
  TL_VEC_INLINE static void run(const float* src, int64_t ld_src, int64_t rows, int64_t cols,
                                float* dst, int64_t ld_dst, int64_t width) {
    const int64_t rows_w = rows / W * W, cols_w = cols / W * W;
    for (int64_t i0 = 0; i0 < rows_w; i0 += W) {
      for (int64_t j0 = 0; j0 < cols_w; j0 += W) {
        VecF<W> v[W];
        TL_GEMM_UNROLL
        for (int r = 0; r < W; ++r) vec_load<W>(src + (i0 + r) * ld_src + j0, v[r]);
        vec_transpose<W>(v);
        TL_GEMM_UNROLL
        for (int r = 0; r < W; ++r) vec_store<W>(dst + (j0 + r) * ld_dst + i0, v[r]);
      }
    }
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = i < rows_w ? cols_w : 0; j < cols; ++j) {
        dst[j * ld_dst + i] = src[i * ld_src + j];
      }
    }
    if (width > rows) {
      for (int64_t j = 0; j < cols; ++j) vec_fill<W>(dst + j * ld_dst + rows, width - rows, 0.0f);
    }
  }
};

// A streamed plan's products. With few tiles each element of U serves few multiply-adds,
// so reading U bounds the GEMM: read as its a (U[xi] @ V[xi], rows of U far apart, each
// element broadcast) it ran at a fraction of the multiply-add rate (ResNet-18's
// 512-channel 7x7 layers, 16 tiles: 2.7 ms). Here U[xi]^T is the packed b, read in vector
// loads, and the products transposed, MT[xi] = VT[xi] @ U[xi]^T ([tile][out]), with V and
// M transposed around them (a small cost with few tiles).
inline bool winograd_streamed(KernelContext& ctx, const tailor::native::ConvShape& s,
                              const WinogradPlan& p, const float* in, const float* packed_u,
                              const float* bias, float* out) {
  const int64_t cin = s.in_channels, cout = s.out_channels;
  const int64_t tiles = p.tiles_h * p.tiles_w, plane = s.out_h * s.out_w;
  const GemmMicroKernels& uk = gemm_micro_kernels(cpu_level());
  const int64_t width = gemm_packed_width(cout, uk.nr);
  ScratchScope scope(ctx.scratch());
  float* vm = ctx.scratch().allocate<float>(p.planes * p.v_step);  // V, then M
  float* vt = ctx.scratch().allocate<float>(p.planes * tiles * cin);
  float* mt = ctx.scratch().allocate<float>(p.planes * tiles * cout);
  if (vm == nullptr || vt == nullptr || mt == nullptr) return false;
  const int64_t reach = (p.tiles_h - 1) * p.tiles_w +
                        (p.tiles_w + kWinogradSlack - 1) / kWinogradSlack * kWinogradSlack;
  bool split_failed = false;
  for (int64_t n = 0; n < s.batch; ++n) {
    ctx.parallel_range(cin, tiles * 64, [&](int64_t begin, int64_t end, KernelScratch& mine) {
      float* split = mine.allocate<float>(p.split_floats);
      if (split == nullptr) {
        __atomic_store_n(&split_failed, true, __ATOMIC_RELAXED);
        return;
      }
      winograd_input(s, p, in + (n * cin + begin) * s.in_h * s.in_w, end - begin, 0,
                     p.tiles_h, split, vm + begin * p.ld);
    });
    if (__atomic_load_n(&split_failed, __ATOMIC_RELAXED)) return false;
    ctx.parallel_range(p.planes, tiles * cin, [&](int64_t begin, int64_t end, KernelScratch&) {
      for (int64_t xi = begin; xi < end; ++xi) {
        vec_run<WinogradTranspose>(static_cast<const float*>(vm) + xi * p.v_step, p.ld, cin,
                                   tiles, vt + xi * tiles * cin, cin, int64_t{0});
      }
    });
    GemmArgs g = gemm_args(tiles, cout, cin, vt, packed_u, mt);  // b unread: packed_b
    g.packed_b = packed_u;
    if (!gemm_batch(ctx, uk, g, p.planes, tiles * cin, width * cin, tiles * cout)) {
      return false;
    }
    ctx.parallel_range(p.planes, tiles * cout, [&](int64_t begin, int64_t end, KernelScratch&) {
      for (int64_t xi = begin; xi < end; ++xi) {
        // Zeros past each row's tiles, as far as the output transform's vectors (of at
        // most kWinogradSlack lanes) read.
        vec_run<WinogradTranspose>(static_cast<const float*>(mt) + xi * tiles * cout, cout,
                                   tiles, cout, vm + xi * p.m_step, p.ld, reach);
      }
    });
    ctx.parallel_range(cout, tiles * 64, [&](int64_t begin, int64_t end, KernelScratch&) {
      winograd_output(s, p, vm + begin * p.ld, end - begin, 0, p.tiles_h,
                      bias != nullptr ? bias + begin : nullptr, out + (n * cout + begin) * plane);
    });
  }
  return true;
}

/// out = convolution of `in` by `weight` (+ bias) for `s`, which winograd_fits(s,
/// packed.u != nullptr), all contiguous NCHW floats, the GEMMs over ctx's threads; with
/// `packed` (winograd_packed_u()) its filters are not transformed again. False when the
/// calling thread's scratch has less than kConvWinogradScratchBytes.
inline bool conv_winograd_float(KernelContext& ctx, const tailor::native::ConvShape& s,
                                const float* in, const float* weight, const float* bias,
                                float* out, const WinogradPacked& packed = {}) {
  const float* packed_u = packed.u;
  const WinogradPlan p = packed_u != nullptr
                             ? winograd_tile_plan(s, packed.tile, true, packed.streamed)
                             : winograd_plan(s);
  if (p.streamed) return winograd_streamed(ctx, s, p, in, packed_u, bias, out);
  const int64_t cin = s.in_channels;
  ScratchScope scope(ctx.scratch());
  float* u = packed_u != nullptr
                 ? nullptr
                 : ctx.scratch().allocate<float>(p.planes * p.channel_block * cin);
  float* v = ctx.scratch().allocate<float>(p.planes * p.v_step);
  float* m = ctx.scratch().allocate<float>(p.planes * p.m_step);
  if ((u == nullptr && packed_u == nullptr) || v == nullptr || m == nullptr) return false;
  // The transforms over the threads, by channels: a tile takes about 64 loads, adds and
  // stores a channel. Each input transform splits its rows into a buffer of its thread's.
  bool split_failed = false;
  const GemmMicroKernels& uk = gemm_micro_kernels(cpu_level());
  const int64_t plane = s.out_h * s.out_w;
  // With one block of output channels its filters are transformed once, not per band.
  const bool one_block = s.out_channels == p.channel_block && packed_u == nullptr;
  if (one_block) vec_run<WinogradFilters>(weight, cin, int64_t{0}, p.channel_block, p.tile, u);
  for (int64_t n = 0; n < s.batch; ++n) {
    const float* src = in + n * cin * s.in_h * s.in_w;
    float* dst = out + n * s.out_channels * plane;
    for (int64_t ty0 = 0; ty0 < p.tiles_h; ty0 += p.band) {
      const int64_t rows = gemm_min(p.tiles_h - ty0, p.band);
      const int64_t tile_cost = rows * p.tiles_w * 64;
      ctx.parallel_range(cin, tile_cost, [&](int64_t begin, int64_t end, KernelScratch& mine) {
        float* split = mine.allocate<float>(p.split_floats);
        if (split == nullptr) {
          __atomic_store_n(&split_failed, true, __ATOMIC_RELAXED);
          return;
        }
        winograd_input(s, p, src + begin * s.in_h * s.in_w, end - begin, ty0, rows, split,
                       v + begin * p.ld);
      });
      if (__atomic_load_n(&split_failed, __ATOMIC_RELAXED)) return false;
      for (int64_t oc0 = 0; oc0 < s.out_channels; oc0 += p.channel_block) {
        const int64_t count = gemm_min(s.out_channels - oc0, p.channel_block);
        const float* block_u = packed_u != nullptr ? packed_u + oc0 * p.planes * cin : u;
        if (packed_u == nullptr && !one_block) {
          vec_run<WinogradFilters>(weight, cin, oc0, count, p.tile, u);
        }
        // GEMM xi: rows of U[.][xi] (planes filters apart), V[xi], M[xi].
        GemmArgs g = gemm_args(count, rows * p.tiles_w, cin, block_u, v, m);
        g.lda = p.planes * cin;
        g.ldb = p.ld;
        g.ldc = p.ld;
        g.row_slack = true;
        if (!gemm_batch(ctx, uk, g, p.planes, cin, p.v_step, p.m_step)) return false;
        ctx.parallel_range(count, tile_cost, [&](int64_t begin, int64_t end, KernelScratch&) {
          winograd_output(s, p, m + begin * p.ld, end - begin, ty0, rows,
                          bias != nullptr ? bias + oc0 + begin : nullptr,
                          dst + (oc0 + begin) * plane);
        });
      }
    }
  }
  return true;
}

}  // namespace tailor::optimized
