// 3x3 convolutions of stride 1 by Winograd's minimal filtering F(2x2, 3x3) and
// F(4x4, 3x3), for kernels/optimized/op_convolution.cpp.
//
// Each 2x2 block of output (a tile) is A^T [(G g G^T) * (B^T d B)] A, where g is a 3x3
// filter, d the 4x4 input patch under the tile, and * an elementwise product: 16
// multiplies a tile and input channel instead of 36. Summed over input channels, the 16
// elementwise products become 16 GEMMs (util/gemm.h), one per position xi of the 4x4:
//
//   M[xi][oc, tile] = U[xi][oc, ic] @ V[xi][ic, tile],   U = G g G^T, V = B^T d B
//
// 2.25x fewer multiply-adds than im2col's product, and no patch gather: the transforms read
// the input and write the output once. F(4x4, 3x3) takes large outputs: 4x4 tiles of 6x6
// patches, 36 GEMMs, 4x fewer multiply-adds. Work goes by bands of whole tile rows (their
// V stays in L2), and within a band by blocks of 64 output channels (their U). With the
// filters transformed at load and few tiles, the products are streamed instead
// (winograd_streamed(): U the GEMM's packed b, one band). Everything lives in the calling
// thread's scratch (kConvWinogradScratchBytes); a shape whose band of one tile row would
// not fit goes to im2col instead. F(2x2)'s transforms take no multiplies in B and A (only
// adds), halves in G: on small integer values the result is exact, as im2col's; F(4x4)'s
// round (util/conv_winograd_plan.h). The plan: util/conv_winograd_plan.h; the transforms:
// util/conv_winograd_transforms.h.
#pragma once

#include "kernels/optimized/util/conv_winograd_plan.h"
#include "kernels/optimized/util/conv_winograd_transforms.h"
#include "kernels/optimized/util/gemm.h"
#include "runtime/kernel/prepack.h"

namespace tailor::optimized {

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
  if (p.band == 0) return false;  // winograd_fits() and winograd_packed_u() rule it out
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
