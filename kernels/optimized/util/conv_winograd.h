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

// How one convolution is cut: tile rows per band and the floats of each buffer.
struct WinogradPlan {
  int64_t tiles_h = 0, tiles_w = 0;  // tiles down and across the output
  int64_t band = 0;                  // tile rows per band; 0: the shape does not fit
  int64_t ld = 0;                    // row stride of V and M (a band's tiles + slack)
  int64_t v_step = 0, m_step = 0;    // floats from V[xi] to V[xi + 1], M[xi] to M[xi + 1]
  int64_t channel_block = 0;         // output channels per U block
  int64_t row_ld = 0;                // row stride of the split input rows
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
  const int64_t floats = 16 * step + 16 * tiles * (cin + cout) +
                         (2 * p.tiles_h + 2) * 2 * p.row_ld;
  if (floats > kWinogradFloats) return false;
  p.band = p.tiles_h;
  p.ld = ld;
  p.v_step = p.m_step = step;
  p.channel_block = cout;
  p.streamed = true;
  return true;
}

/// `packed_u`: the filters were transformed at load (winograd_packed_u()), so no U block
/// takes scratch; `streamed`: in winograd_streamed()'s layout (band 0 when its plan does
/// not fit `s`).
inline WinogradPlan winograd_plan(const tailor::native::ConvShape& s, bool packed_u = false,
                                  bool streamed = false) {
  WinogradPlan p;
  p.tiles_h = (s.out_h + 1) / 2;
  p.tiles_w = (s.out_w + 1) / 2;
  p.channel_block = gemm_min(s.out_channels, kWinogradChannelBlock);
  p.row_ld = p.tiles_w + 1 + kWinogradSlack;
  if (streamed) {
    winograd_streamed_plan(s, &p);
    return p;
  }
  const int64_t cin = s.in_channels;
  for (int64_t band = gemm_min(p.tiles_h, kWinogradMaxTiles / p.tiles_w); band >= 1; --band) {
    // Whole strips of the GEMM (its row_slack), then a vector's slack for the transforms.
    const int64_t ld = (band * p.tiles_w + kGemmMaxNr - 1) / kGemmMaxNr * kGemmMaxNr +
                       kWinogradSlack;
    const int64_t floats = (packed_u ? 0 : 16 * p.channel_block * cin)            // U
                           + 16 * ((cin + p.channel_block) * ld + 2 * kWinogradSlack)  // V, M
                           + (2 * band + 2) * 2 * p.row_ld;     // the input rows
    if (floats <= kWinogradFloats) {
      p.band = band;
      p.ld = ld;
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
         s.out_channels >= 32 && sized && winograd_plan(s, packed_u).band > 0;
}

// U[o][xi][ic] = (G g G^T)[xi] for output channels [oc0, oc0 + count) of `weight`
// ([out][in][3][3]); G's rows are (1 0 0), (1/2 1/2 1/2), (1/2 -1/2 1/2), (0 0 1). By
// vectors across W input channels: W filters (9 floats each) are loaded as W vectors of
// W and transposed, so that vector t holds tap t of each (copied lane by lane through an
// array, the taps cost 4x the time; AVX-512's gather instruction is slower still on
// Zen 4). A filter's 16 rows lie together (the GEMM reads rows of U 16 * cin apart): as
// 16 rows far apart, the stores ran at a third of the convolution's time. The small
// loops unroll so that the vectors stay in registers.
struct WinogradFilters {
  template <int W>
  TL_VEC_INLINE static void run(const float* weight, int64_t cin, int64_t oc0, int64_t count,
                                float* u) {
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
        VecF<W> p[4][3];  // G g
        TL_GEMM_UNROLL
        for (int j = 0; j < 3; ++j) {
          const VecF<W> outer = g[j] + g[6 + j];
          p[0][j] = g[j];
          p[1][j] = 0.5f * (outer + g[3 + j]);
          p[2][j] = 0.5f * (outer - g[3 + j]);
          p[3][j] = g[6 + j];
        }
        float* dst = u + o * 16 * cin + ic;
        TL_GEMM_UNROLL
        for (int i = 0; i < 4; ++i) {  // (G g) G^T
          const VecF<W> outer = p[i][0] + p[i][2];
          const VecF<W> row[4] = {p[i][0], 0.5f * (outer + p[i][1]), 0.5f * (outer - p[i][1]),
                                  p[i][2]};
          TL_GEMM_UNROLL
          for (int j = 0; j < 4; ++j) {
            if (lanes == W) {
              vec_store<W>(dst + (4 * i + j) * cin, row[j]);
            } else {
              vec_store_partial<W>(dst + (4 * i + j) * cin, lanes, row[j]);
            }
          }
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

// Every filter transformed once at method load (runtime/kernel/prepack.h): a header
// naming the weights, their shape and the layout, then U for all output channels. Most
// shapes take it as WinogradFilters writes a block of them, [out][16][in]; a streamed
// plan (winograd_streamed()) takes U[xi] transposed, [in][out], as the GEMM's packed b
// (util/gemm_prepack.h: depth blocks of strips `nr` wide) for each xi in turn. The
// transform otherwise runs on every call (for every band when the outputs take several
// blocks).
struct WinogradPackedU {
  uint32_t magic;
  int64_t in_channels;
  int64_t out_channels;
  int64_t nr;  // the strips' width of a streamed layout; 0: [out][16][in]
  const float* source;
};
inline constexpr uint32_t kWinogradPackedUMagic = 0x55474e57;  // "WNGU"
inline constexpr size_t kWinogradPackedUHeader = kPrepackAlignment;
static_assert(sizeof(WinogradPackedU) <= kWinogradPackedUHeader, "the header fits its line");

// Whether filters transformed at load for `s` are streamed (winograd_streamed()).
inline bool winograd_streams(const tailor::native::ConvShape& s) {
  return winograd_plan(s, true, true).band > 0;
}

// The strips' width of the layout winograd_pack_u() writes for `s`: 0 unless streamed.
inline int64_t winograd_packed_nr(const tailor::native::ConvShape& s) {
  return winograd_streams(s) ? gemm_micro_kernels(cpu_level()).nr : 0;
}

/// Bytes of the transformed filters of `s` (a 3x3 weight [out][in][3][3]).
inline size_t winograd_packed_u_bytes(const tailor::native::ConvShape& s) {
  const int64_t nr = winograd_packed_nr(s);
  const int64_t width = nr > 0 ? gemm_packed_width(s.out_channels, nr) : s.out_channels;
  return kWinogradPackedUHeader + static_cast<size_t>(16 * width * s.in_channels) * sizeof(float);
}

// u[xi] = (G g G^T)[xi] of one filter, in WinogradFilters' order of operations (the same
// floats either layout).
inline void winograd_filter(const float* g, float* u) {
  float p[4][3];
  for (int j = 0; j < 3; ++j) {
    const float outer = g[j] + g[6 + j];
    p[0][j] = g[j];
    p[1][j] = 0.5f * (outer + g[3 + j]);
    p[2][j] = 0.5f * (outer - g[3 + j]);
    p[3][j] = g[6 + j];
  }
  for (int i = 0; i < 4; ++i) {
    const float outer = p[i][0] + p[i][2];
    u[4 * i + 0] = p[i][0];
    u[4 * i + 1] = 0.5f * (outer + p[i][1]);
    u[4 * i + 2] = 0.5f * (outer - p[i][1]);
    u[4 * i + 3] = p[i][2];
  }
}

inline void winograd_pack_u(const tailor::native::ConvShape& s, const float* weight,
                            void* packed) {
  const int64_t cin = s.in_channels, cout = s.out_channels, nr = winograd_packed_nr(s);
  WinogradPackedU header{kWinogradPackedUMagic, cin, cout, nr, weight};
  __builtin_memcpy(packed, &header, sizeof(header));
  float* u = reinterpret_cast<float*>(static_cast<uint8_t*>(packed) + kWinogradPackedUHeader);
  if (nr == 0) {
    vec_run<WinogradFilters>(weight, cin, int64_t{0}, cout, u);
    return;
  }
  // U[xi][o, ic] where gemm_pack_whole_b() would put b[ic, o] of b = U[xi]^T: depth
  // block pc, strip o / nr, row ic - pc, lane o % nr; the lanes past cout stay zeros.
  const int64_t width = gemm_packed_width(cout, nr), kc_max = gemm_min(cin, kGemmDepth);
  __builtin_memset(u, 0, static_cast<size_t>(16 * width * cin) * sizeof(float));
  for (int64_t o = 0; o < cout; ++o) {
    for (int64_t ic = 0; ic < cin; ++ic) {
      float t[16];
      winograd_filter(weight + (o * cin + ic) * 9, t);
      const int64_t pc = ic / kc_max * kc_max, kc = gemm_min(cin - pc, kc_max);
      float* dst = u + pc * width + o / nr * kc * nr + (ic - pc) * nr + o % nr;
      for (int xi = 0; xi < 16; ++xi) dst[xi * width * cin] = t[xi];
    }
  }
}

/// U of `packed` (KernelContext::packed()) when it holds `weight` transformed for `s`,
/// else nullptr (the filters are transformed per call); `streamed` says its layout. A
/// copy made for the planned sizes serves a call of other sizes (a dynamic dimension) in
/// its own layout: [out][16][in] any, a streamed one those it still fits.
inline const float* winograd_packed_u(const void* packed, const tailor::native::ConvShape& s,
                                      const float* weight, bool* streamed) {
  if (packed == nullptr) return nullptr;
  WinogradPackedU header;
  __builtin_memcpy(&header, packed, sizeof(header));
  if (header.magic != kWinogradPackedUMagic || header.in_channels != s.in_channels ||
      header.out_channels != s.out_channels || header.source != weight ||
      (header.nr != 0 &&
       (header.nr != gemm_micro_kernels(cpu_level()).nr || !winograd_streams(s)))) {
    return nullptr;
  }
  *streamed = header.nr != 0;
  return reinterpret_cast<const float*>(static_cast<const uint8_t*>(packed) +
                                        kWinogradPackedUHeader);
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
  float* vm = ctx.scratch().allocate<float>(16 * p.v_step);  // V, then M
  float* vt = ctx.scratch().allocate<float>(16 * tiles * cin);
  float* mt = ctx.scratch().allocate<float>(16 * tiles * cout);
  if (vm == nullptr || vt == nullptr || mt == nullptr) return false;
  const int64_t split_floats = (2 * p.band + 2) * 2 * p.row_ld;
  const int64_t reach = (p.tiles_h - 1) * p.tiles_w +
                        (p.tiles_w + kWinogradSlack - 1) / kWinogradSlack * kWinogradSlack;
  bool split_failed = false;
  for (int64_t n = 0; n < s.batch; ++n) {
    ctx.parallel_range(cin, tiles * 64, [&](int64_t begin, int64_t end, KernelScratch& mine) {
      float* split = mine.allocate<float>(split_floats);
      if (split == nullptr) {
        __atomic_store_n(&split_failed, true, __ATOMIC_RELAXED);
        return;
      }
      vec_run<WinogradInput>(&s, &p, in + (n * cin + begin) * s.in_h * s.in_w, end - begin,
                             int64_t{0}, p.tiles_h, split, vm + begin * p.ld);
    });
    if (__atomic_load_n(&split_failed, __ATOMIC_RELAXED)) return false;
    ctx.parallel_range(16, tiles * cin, [&](int64_t begin, int64_t end, KernelScratch&) {
      for (int64_t xi = begin; xi < end; ++xi) {
        vec_run<WinogradTranspose>(static_cast<const float*>(vm) + xi * p.v_step, p.ld, cin,
                                   tiles, vt + xi * tiles * cin, cin, int64_t{0});
      }
    });
    GemmArgs g = gemm_args(tiles, cout, cin, vt, packed_u, mt);  // b unread: packed_b
    g.packed_b = packed_u;
    if (!gemm_batch(ctx, uk, g, 16, tiles * cin, width * cin, tiles * cout)) return false;
    ctx.parallel_range(16, tiles * cout, [&](int64_t begin, int64_t end, KernelScratch&) {
      for (int64_t xi = begin; xi < end; ++xi) {
        // Zeros past each row's tiles, as far as the output transform's vectors (of at
        // most kWinogradSlack lanes) read.
        vec_run<WinogradTranspose>(static_cast<const float*>(mt) + xi * tiles * cout, cout,
                                   tiles, cout, vm + xi * p.m_step, p.ld, reach);
      }
    });
    ctx.parallel_range(cout, tiles * 64, [&](int64_t begin, int64_t end, KernelScratch&) {
      vec_run<WinogradOutput>(&s, &p, static_cast<const float*>(vm) + begin * p.ld,
                              end - begin, int64_t{0}, p.tiles_h,
                              bias != nullptr ? bias + begin : nullptr,
                              out + (n * cout + begin) * plane);
    });
  }
  return true;
}

/// out = convolution of `in` by `weight` (+ bias) for `s`, which winograd_fits(s,
/// packed_u != nullptr), all contiguous NCHW floats, the GEMMs over ctx's threads; with
/// `packed_u` (winograd_packed_u(), in the layout `streamed` says) its filters are not
/// transformed again. False when the calling thread's scratch has less than
/// kConvWinogradScratchBytes.
inline bool conv_winograd_float(KernelContext& ctx, const tailor::native::ConvShape& s,
                                const float* in, const float* weight, const float* bias,
                                float* out, const float* packed_u = nullptr,
                                bool streamed = false) {
  const WinogradPlan p = winograd_plan(s, packed_u != nullptr, streamed);
  if (p.streamed) return winograd_streamed(ctx, s, p, in, packed_u, bias, out);
  const int64_t cin = s.in_channels;
  ScratchScope scope(ctx.scratch());
  float* u = packed_u != nullptr ? nullptr
                                 : ctx.scratch().allocate<float>(16 * p.channel_block * cin);
  float* v = ctx.scratch().allocate<float>(16 * p.v_step);
  float* m = ctx.scratch().allocate<float>(16 * p.m_step);
  if ((u == nullptr && packed_u == nullptr) || v == nullptr || m == nullptr) return false;
  // The transforms over the threads, by channels: a tile takes about 64 loads, adds and
  // stores a channel. Each input transform splits its rows into a buffer of its thread's.
  const int64_t split_floats = (2 * p.band + 2) * 2 * p.row_ld;
  bool split_failed = false;
  const GemmMicroKernels& uk = gemm_micro_kernels(cpu_level());
  const int64_t plane = s.out_h * s.out_w;
  // With one block of output channels its filters are transformed once, not per band.
  const bool one_block = s.out_channels == p.channel_block && packed_u == nullptr;
  if (one_block) vec_run<WinogradFilters>(weight, cin, int64_t{0}, p.channel_block, u);
  for (int64_t n = 0; n < s.batch; ++n) {
    const float* src = in + n * cin * s.in_h * s.in_w;
    float* dst = out + n * s.out_channels * plane;
    for (int64_t ty0 = 0; ty0 < p.tiles_h; ty0 += p.band) {
      const int64_t rows = gemm_min(p.tiles_h - ty0, p.band);
      const int64_t tile_cost = rows * p.tiles_w * 64;
      ctx.parallel_range(cin, tile_cost, [&](int64_t begin, int64_t end, KernelScratch& mine) {
        float* split = mine.allocate<float>(split_floats);
        if (split == nullptr) {
          __atomic_store_n(&split_failed, true, __ATOMIC_RELAXED);
          return;
        }
        vec_run<WinogradInput>(&s, &p, src + begin * s.in_h * s.in_w, end - begin, ty0, rows,
                               split, v + begin * p.ld);
      });
      if (__atomic_load_n(&split_failed, __ATOMIC_RELAXED)) return false;
      for (int64_t oc0 = 0; oc0 < s.out_channels; oc0 += p.channel_block) {
        const int64_t count = gemm_min(s.out_channels - oc0, p.channel_block);
        const float* block_u = packed_u != nullptr ? packed_u + oc0 * 16 * cin : u;
        if (packed_u == nullptr && !one_block) {
          vec_run<WinogradFilters>(weight, cin, oc0, count, u);
        }
        // GEMM xi: rows of U[.][xi] (16 filters apart), V[xi], M[xi].
        GemmArgs g = gemm_args(count, rows * p.tiles_w, cin, block_u, v, m);
        g.lda = 16 * cin;
        g.ldb = p.ld;
        g.ldc = p.ld;
        g.row_slack = true;
        if (!gemm_batch(ctx, uk, g, 16, cin, p.v_step, p.m_step)) return false;
        ctx.parallel_range(count, tile_cost, [&](int64_t begin, int64_t end, KernelScratch&) {
          vec_run<WinogradOutput>(&s, &p, static_cast<const float*>(m) + begin * p.ld,
                                  end - begin, ty0, rows,
                                  bias != nullptr ? bias + oc0 + begin : nullptr,
                                  dst + (oc0 + begin) * plane);
        });
      }
    }
  }
  return true;
}

}  // namespace tailor::optimized
