// How Winograd's convolution (util/conv_winograd.h) cuts one: its tile, bands and
// buffers (WinogradPlan), and which shapes it takes at all (winograd_fits()).
#pragma once

#include "kernels/optimized/util/gemm.h"
#include "kernels/portable/util/conv.h"

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

}  // namespace tailor::optimized
