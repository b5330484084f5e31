// The dense convolution behind tailor_quant::conv2d.out (kernels/quantized/op_conv2d.cpp):
// util/qlinear.h's int8 product over each output pixel's receptive field,
//
//   out[n, o, y, x] = x_scale[n] * w_scale[o] * sum_{i, j, c} xq[n, c, y * sh - ph + i * dh,
//                         x * sw - pw + j * dw] * w[o, i, j, c] + bias[o]   (zero outside),
//
// with each image quantized as one token (exporter/quantize/activations.py: x_scale =
// max|image| / 127). Input rows are quantized once into a band of int8 NHWC rows whose
// channels are padded to a multiple of 4, so each tap of a patch is whole 4-byte words
// and a patch row (taps x padded channels, the order of the weights) needs no padding at
// its end; each pixel's sum is kept for the 1x1 convolutions that read the band in place
// (a patch's sum is what the prefill GEMM subtracts). A chunk of output pixels gathers
// its patches into a buffer of rows, their sums taken on vectors after, and runs the
// linear's GEMM, which writes the outputs as NCHW columns. Quantizing the image once
// (instead of each patch, as tailor_quant::linear would) makes a patch a copy of bytes.
#pragma once

#include <stdint.h>

#include "kernels/quantized/util/qconv_avx2.h"
#include "kernels/quantized/util/qlinear.h"
#include "runtime/kernel/cpu_level.h"
#include "runtime/kernel/kernel_context.h"

namespace tailor::quantized {

// The band of quantized input rows (and each pixel's sum): every input row an output
// row reads must fit in it.
inline constexpr int64_t kQConvBandBytes = 1024 * 1024;
// A chunk's patch rows: 4 times the linear's, so a chunk holds whole image rows (56 pixels
// of 4608 inputs) and each weight span the GEMM brings into L1 serves more rows.
inline constexpr int64_t kQConvRowBytes = 4 * kQRowBuffer;
// The manifest's scratch_bytes of tailor_quant::conv2d.out: the band, then the linear's
// buffers with kQConvRowBytes of rows.
inline constexpr size_t kQConvScratchBytes =
    kQConvBandBytes + kQLinearScratchBytes - kQRowBuffer + kQConvRowBytes;

struct QConvShape {
  int64_t batch = 0, channels = 0, height = 0, width = 0;  // input
  int64_t out_channels = 0, out_height = 0, out_width = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;

  int64_t padded_channels() const { return (channels + 3) / 4 * 4; }
  int64_t patch() const { return kh * kw * padded_channels(); }  // the linear's k
  // A band row's bytes: its pixels' channels, then their sums.
  int64_t band_row_bytes() const { return width * (padded_channels() + 4); }
  // Input rows one output row reads.
  int64_t rows_per_output_row() const { return (kh - 1) * dh + 1; }
};

// Patch rows a chunk holds (0: not even one).
inline int64_t qconv_chunk_rows(const QConvShape& s) {
  return qlinear_chunk_rows(s.patch(), 1, 8, true, kQConvRowBytes);
}

// Whether one output row's input rows fit the band and a patch row the chunk's buffer.
inline bool qconv_fits(const QConvShape& s) {
  return s.rows_per_output_row() * s.band_row_bytes() <= kQConvBandBytes &&
         qconv_chunk_rows(s) >= 1;
}

// Input rows from y0 on, quantized: q int8 [rows, width, padded channels], sums int32
// [rows, width] (a pixel's channels summed).
struct QConvBand {
  int8_t* q = nullptr;
  int32_t* sums = nullptr;
  int64_t y0 = 0;
};

// The largest |x| of an image, on vectors where the CPU has them.
inline float qconv_abs_max(const float* x, int64_t k) {
#if defined(__x86_64__)
  if (cpu_level() >= CpuLevel::Avx2) return abs_max_avx2(x, k);
#endif
  return abs_max(x, k);
}

// Input rows [y0, y1) of one image (float CHW) quantized with `inverse` into the band,
// rows split over ctx's threads.
inline void qconv_quantize_rows(KernelContext& ctx, const float* image, const QConvShape& s,
                                int64_t y0, int64_t y1, float inverse, QConvBand& band) {
  const int64_t cp = s.padded_channels(), plane = s.height * s.width;
  band.y0 = y0;
  band.sums = reinterpret_cast<int32_t*>(band.q + (y1 - y0) * s.width * cp);
  const QConvBand& b = band;
  ctx.parallel_range(y1 - y0, s.width * cp, [&](int64_t first, int64_t last, KernelScratch&) {
    for (int64_t y = y0 + first; y < y0 + last; ++y) {
      int8_t* q = b.q + (y - y0) * s.width * cp;
      int32_t* sums = b.sums + (y - y0) * s.width;
#if defined(__x86_64__)
      if (cpu_level() >= CpuLevel::Avx2) {
        qconv_quantize_row_avx2(image, plane, s.channels, cp, y, s.width, inverse, q, sums);
        continue;
      }
#endif
      for (int64_t x = 0; x < s.width; ++x) {
        int32_t total = 0;
        for (int64_t c = 0; c < cp; ++c) {
          const int8_t v = c < s.channels
                               ? quantize_value(image[c * plane + y * s.width + x], inverse)
                               : int8_t{0};
          q[x * cp + c] = v;
          total += v;
        }
        sums[x] = total;
      }
    }
  });
}

// count x 4 bytes from in to out (inlined: a patch's runs are 12 to a few thousand
// bytes, too short for a call): 16-byte moves, the last ending at the run's end (it may
// overlap the one before); two 8-byte moves the same way for 8 to 12 bytes.
inline void qconv_copy_words(const int8_t* in, int64_t count, int8_t* out) {
  const int64_t bytes = count * 4;
  if (bytes < 16) {
    if (bytes < 8) {
      __builtin_memcpy(out, in, 4);
    } else {
      __builtin_memcpy(out, in, 8);
      __builtin_memcpy(out + bytes - 8, in + bytes - 8, 8);
    }
    return;
  }
  for (int64_t b = 0; b + 16 < bytes; b += 16) __builtin_memcpy(out + b, in + b, 16);
  __builtin_memcpy(out + bytes - 16, in + bytes - 16, 16);
}

// The patch rows of output pixels [p0, p1) into rows (s.patch() apart). An undilated
// window row inside the image is one run of the band (its taps are neighbouring pixels);
// the sums the prefill GEMM needs are taken from the rows after (qconv_piece).
inline void qconv_gather(const QConvBand& band, const QConvShape& s, int64_t p0, int64_t p1,
                         int8_t* rows) {
  // In locals: the int8 stores may alias anything, so fields would be read again after each.
  const int64_t cp = s.padded_channels(), patch = s.patch(), width = s.width;
  const int64_t kh = s.kh, kw = s.kw, dh = s.dh, dw = s.dw;
  const int8_t* const q = band.q;
  int64_t oy = p0 / s.out_width, ox = p0 % s.out_width;
  for (int64_t p = p0; p < p1; ++p) {
    int8_t* out = rows + (p - p0) * patch;
    const int64_t ix0 = ox * s.sw - s.pw;
    const bool whole_row = dw == 1 && ix0 >= 0 && ix0 + kw <= width;
    for (int64_t i = 0; i < kh; ++i, out += kw * cp) {
      const int64_t iy = oy * s.sh - s.ph + i * dh;
      if (iy < 0 || iy >= s.height) {
        __builtin_memset(out, 0, kw * cp);
        continue;
      }
      const int64_t pixel0 = (iy - band.y0) * width;  // the row's first pixel in the band
      if (whole_row) {
        qconv_copy_words(q + (pixel0 + ix0) * cp, kw * cp / 4, out);
        continue;
      }
      for (int64_t j = 0; j < kw; ++j) {
        const int64_t ix = ix0 + j * dw;
        if (ix < 0 || ix >= width) {
          __builtin_memset(out + j * cp, 0, cp);
        } else {
          qconv_copy_words(q + (pixel0 + ix) * cp, cp / 4, out + j * cp);
        }
      }
    }
    if (++ox == s.out_width) {
      ox = 0;
      ++oy;
    }
  }
}

// How one image's output pixels go through the GEMM: bands of output rows whose input
// rows the band holds, each cut into pieces of whole output rows (while a row fits a
// chunk of patch rows; else parts of one row).
struct QConvPlan {
  const QConvShape* s;
  const QLinearArgs* a;
  const QConvBand* band;
  float scale;            // the image's
  int64_t chunk;          // patch rows a piece holds at most
  int64_t rows_per_piece; // output rows (0: a piece is part of one row)
  int64_t parts_per_row;  // when rows_per_piece is 0
  int64_t oy0;            // the band's first output row
  bool pointwise;         // 1x1 stride 1: the patches are the band's pixels

  // The output pixels [m0, m0 + rows) of piece i.
  void piece(int64_t i, int64_t oy1, int64_t& m0, int64_t& rows) const {
    const int64_t width = s->out_width;
    if (rows_per_piece > 0) {
      const int64_t first = oy0 + i * rows_per_piece;
      m0 = first * width;
      rows = (qlinear_min(oy1, first + rows_per_piece) - first) * width;
    } else {
      m0 = (oy0 + i / parts_per_row) * width + i % parts_per_row * chunk;
      rows = qlinear_min(chunk, width - i % parts_per_row * chunk);
    }
  }
  int64_t pieces(int64_t oy1) const {
    return rows_per_piece > 0 ? (oy1 - oy0 + rows_per_piece - 1) / rows_per_piece
                              : (oy1 - oy0) * parts_per_row;
  }
};

// Piece i's chunk, on buffers from `scratch`, ready for the GEMM: its patch rows, their
// scale and (for the prefill GEMM) sums. False when scratch has no room for the buffers.
inline bool qconv_piece(const QConvPlan& plan, int64_t i, int64_t oy1, KernelScratch& scratch,
                        QLinearChunk& c) {
  c = qlinear_chunk_buffers(scratch, qlinear_kernels(), *plan.a, kQConvRowBytes);
  if (c.buffer == nullptr || c.sums == nullptr || c.row_scale == nullptr) return false;
  plan.piece(i, oy1, c.m0, c.rows);
  const QConvShape& s = *plan.s;
  const QConvBand& band = *plan.band;
  const bool sums = qlinear_prefill_fits(c) && c.kernels->prefill_int8_sums;
  if (plan.pointwise) {  // the band's pixels, and their sums when one span holds them
    const int64_t first = c.m0 - band.y0 * s.width;
    c.buffer = band.q + first * c.kp;
    if (c.sum_stride == 1) c.sums = band.sums + first;
  } else {
    qconv_gather(band, s, c.m0, c.m0 + c.rows, c.buffer);
  }
  const bool row_sums = sums && !(plan.pointwise && c.sum_stride == 1);
  for (int64_t r = 0; r < c.rows; ++r) {
    c.row_scale[r] = plan.scale;
    if (row_sums) qlinear_span_sums(c.buffer + r * c.kp, c.kp, c.sums + r * c.sum_stride);
  }
  return true;
}

struct QConvPieces {
  const QConvPlan* plan;
  int64_t oy1;
};

// One piece on the thread that takes it: its patches in the thread's scratch, then every
// weight block.
inline void qconv_piece_task(void* context, int64_t i, KernelScratch& scratch) {
  const QConvPieces& pieces = *static_cast<const QConvPieces*>(context);
  const QConvPlan& plan = *pieces.plan;
  ScratchScope scope(scratch);
  QLinearChunk c;
  // Every slice holds kQConvScratchBytes (qconv2d checked the caller's rest).
  if (qconv_piece(plan, i, pieces.oy1, scratch, c)) {
    qlinear_blocks(c, 0, (plan.a->n + kQBlock - 1) / kQBlock, scratch);
  }
}

/// The convolution of x (float NCHW) into out (float NCHW) with weights packed as
/// tailor_quant::linear's int8 ones over s.patch() inputs, clamped to [low, high] (-inf
/// and inf: not clamped). False, with nothing computed,
/// when ctx's scratch slice has less than kQConvScratchBytes; qconv_fits(s) must hold.
/// With several threads, a band's pieces go to the threads whole (each gathers its own
/// patches) when there are two a thread or more, else each piece's weight blocks do.
inline bool qconv2d(KernelContext& ctx, const QConvShape& s, const float* x, const int8_t* w,
                    const float* w_scales, const float* bias, float* out,
                    float low = -__builtin_inff(), float high = __builtin_inff()) {
  QLinearArgs a;
  a.m = s.out_height * s.out_width;
  a.n = s.out_channels;
  a.k = s.patch();
  a.w = w;
  a.scales = w_scales;
  a.bias = bias;
  a.out_row_stride = 1;  // NCHW: an output pixel's channels lie a plane apart
  a.out_col_stride = a.m;
  a.low = low;  // the GEMM's epilogues clamp, in registers
  a.high = high;
  KernelScratch& scratch = ctx.scratch();
  ScratchScope scope(scratch);
  QConvBand band;
  band.q = scratch.allocate<int8_t>(kQConvBandBytes);
  // The rest of the slice holds a piece's buffers when it runs here.
  if (band.q == nullptr ||
      scratch.size() - scratch.mark() < kQConvScratchBytes - kQConvBandBytes) {
    return false;
  }
  QConvPlan plan{&s, &a, &band, 0.0f, qconv_chunk_rows(s), 0, 0, 0, false};
  const int64_t band_rows = kQConvBandBytes / s.band_row_bytes();
  const int64_t out_rows_in_band = (band_rows - s.rows_per_output_row()) / s.sh + 1;
  plan.rows_per_piece = s.out_width <= plan.chunk
                            ? qlinear_min(plan.chunk / s.out_width, out_rows_in_band)
                            : 0;
  plan.parts_per_row = (s.out_width + plan.chunk - 1) / plan.chunk;
  plan.pointwise = s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.ph == 0 && s.pw == 0;
  const int64_t plane = s.channels * s.height * s.width;
  for (int64_t n = 0; n < s.batch; ++n) {
    const float* image = x + n * plane;
    a.out = out + n * s.out_channels * a.m;
    plan.scale = quantize_scale(qconv_abs_max(image, plane));
    for (plan.oy0 = 0; plan.oy0 < s.out_height;) {
      const int64_t oy1 = qlinear_min(s.out_height, plan.oy0 + out_rows_in_band);
      // The input rows these output rows read (none, past the image, in a wide padding).
      const int64_t top = plan.oy0 * s.sh - s.ph;
      const int64_t y0 = qlinear_min(s.height, top > 0 ? top : 0);
      const int64_t y1 = qlinear_min(s.height, (oy1 - 1) * s.sh - s.ph + s.rows_per_output_row());
      qconv_quantize_rows(ctx, image, s, y0, y1 > y0 ? y1 : y0, 1.0f / plan.scale, band);
      const int64_t count = plan.pieces(oy1);
      if (ctx.threads() > 1 && count >= 2 * ctx.threads()) {
        QConvPieces pieces{&plan, oy1};
        ctx.parallel_for(count, &qconv_piece_task, &pieces);
      } else {
        for (int64_t i = 0; i < count; ++i) {
          ScratchScope piece_scope(scratch);
          QLinearChunk c;
          if (qconv_piece(plan, i, oy1, scratch, c)) qlinear_chunk(ctx, c);
        }
      }
      plan.oy0 = oy1;
    }
  }
  return true;
}

}  // namespace tailor::quantized
