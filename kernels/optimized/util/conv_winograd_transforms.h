// The transforms of Winograd's convolution (util/conv_winograd.h), over vectors of W
// lanes (vec_run): the filters' G g G^T, the input's B^T d B and the output's A^T M A for
// F(2x2, 3x3) and F(4x4, 3x3), and the transposes of a streamed plan.
#pragma once

#include "kernels/optimized/util/conv_winograd_plan.h"
#include "kernels/optimized/util/gemm_ukernel.h"
#include "kernels/optimized/util/vec.h"

namespace tailor::optimized {

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

// out = G x for F(4x4, 3x3) of one column x = (x0, x1, x2) of taps: G's rows are
// (1/4 0 0), -(1/6 1/6 1/6), -(1/6 -1/6 1/6), (1/24 1/12 1/6), (1/24 -1/12 1/6), (0 0 1)
// (interpolation points 0, -1, 1, 2, -2).
template <typename T>
TL_VEC_INLINE void winograd_filter_f4_column(const T& x0, const T& x1, const T& x2, T* out) {
  const T outer = x0 + x2;
  const T quarter = (1.0f / 24) * x0 + (1.0f / 6) * x2;
  out[0] = 0.25f * x0;
  out[1] = (-1.0f / 6) * (outer + x1);
  out[2] = (-1.0f / 6) * (outer - x1);
  out[3] = quarter + (1.0f / 12) * x1;
  out[4] = quarter - (1.0f / 12) * x1;
  out[5] = x2;
}

// The same as winograd_filter_f2() for F(4x4, 3x3).
template <typename T>
TL_VEC_INLINE void winograd_filter_f4(const T (&g)[9], T (&u)[36]) {
  T p[3][6];  // (G g)^T: p[j] is G times column j of g
  TL_GEMM_UNROLL
  for (int j = 0; j < 3; ++j) winograd_filter_f4_column(g[j], g[3 + j], g[6 + j], p[j]);
  TL_GEMM_UNROLL
  for (int i = 0; i < 6; ++i) {  // (G g) G^T
    winograd_filter_f4_column(p[0][i], p[1][i], p[2][i], u + 6 * i);
  }
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
  // dst[xi * cin + l] = t[xi][l] for xi < planes, l < lanes.
  template <int W>
  TL_VEC_INLINE static void store(const VecF<W>* t, int64_t planes, int64_t lanes,
                                  int64_t cin, float* dst) {
    for (int64_t xi = 0; xi < planes; ++xi) {
      if (lanes == W) {
        vec_store<W>(dst + xi * cin, t[xi]);
      } else {
        vec_store_partial<W>(dst + xi * cin, lanes, t[xi]);
      }
    }
  }

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
        if (tile == 4) {
          VecF<W> t[36];
          winograd_filter_f4(g, t);
          store<W>(t, planes, lanes, cin, dst);
        } else {
          VecF<W> t[16];
          winograd_filter_f2(g, t);
          store<W>(t, planes, lanes, cin, dst);
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

  // The input rows a band of `rows` tile rows from ty0 reads (tile * rows + 2 of them) of
  // one channel's `plane`, each as p.tile runs of p.row_ld floats: run k of row r, at
  // split + (tile * r + k) * row_ld, holds columns tile * e + k - pad_w (zeros in the
  // padding). For F(4x4) a row's even and odd columns go first into the 4 * row_ld
  // floats past the runs (winograd_split_floats()), then each of those in halves.
  template <int W>
  TL_VEC_INLINE static void split_rows(const tailor::native::ConvShape& s, const WinogradPlan& p,
                                       const float* plane, int64_t ty0, int64_t rows,
                                       float* split) {
    const int64_t tile = p.tile, ld = p.row_ld, in_rows = tile * rows + 2;
    float* halves = split + tile * in_rows * ld;
    for (int64_t r = 0; r < in_rows; ++r) {
      const int64_t ih = tile * ty0 + r - s.pad_h;
      const float* row = ih >= 0 && ih < s.in_h ? plane + ih * s.in_w : nullptr;
      float* runs = split + tile * r * ld;
      if (tile == 2) {
        split_columns<W>(row, s.in_w, -s.pad_w, ld, runs);
        split_columns<W>(row, s.in_w, 1 - s.pad_w, ld, runs + ld);
        continue;
      }
      split_columns<W>(row, s.in_w, -s.pad_w, 2 * ld, halves);
      split_columns<W>(row, s.in_w, 1 - s.pad_w, 2 * ld, halves + 2 * ld);
      for (int k = 0; k < 4; ++k) {
        const float* half = halves + (k % 2) * 2 * ld + k / 2;
        vec_copy_every<W>(half, 2, 2 * ld - k / 2, runs + k * ld, ld);
      }
    }
  }

  template <int W>
  TL_VEC_INLINE static void run(const tailor::native::ConvShape* shape, const WinogradPlan* plan,
                                const float* src, int64_t channels, int64_t ty0, int64_t rows,
                                float* split, float* v) {
    const tailor::native::ConvShape& s = *shape;
    const WinogradPlan& p = *plan;
    const int64_t xi_step = p.v_step;
    for (int64_t ic = 0; ic < channels; ++ic) {
      split_rows<W>(s, p, src + ic * s.in_h * s.in_w, ty0, rows, split);
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
// split into its columns modulo 4 (WinogradInput::split_rows()), so that tile tx's six
// columns are runs 0 to 3 at tx, then runs 0 and 1 at tx + 1.
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
    const int64_t ld = p.row_ld;
    for (int64_t ic = 0; ic < channels; ++ic) {
      WinogradInput::split_rows<W>(s, p, src + ic * s.in_h * s.in_w, ty0, rows, split);
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

}  // namespace tailor::optimized
