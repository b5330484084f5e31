// Row-major matrix product shared by mm, bmm and addmm.
//
// Two implementations of one contract (matmul() below):
// - blocked (default): b is packed block by block into a stack buffer, and a 4-row,
//   32-byte-wide tile of out accumulates in registers, in plain loops that GCC and Clang
//   vectorize at -O2 (SSE2, NEON; no intrinsics, no -march).
// - row by row: the compact loop, chosen when the build optimizes for size (-Os). There
//   nothing is vectorized, and the blocked kernel, at 1.3-1.7x the speed, would cost
//   about 3.5 KB more per dtype (x86-64, GCC 12).
// Define TL_MATMUL_BLOCKED to 0 or 1 to choose; bench/matmul_kernel.py checks both.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/wrap.h"
#include "runtime/kernel/kernel_includes.h"

#ifndef TL_MATMUL_BLOCKED
#if defined(__OPTIMIZE_SIZE__)
#define TL_MATMUL_BLOCKED 0
#else
#define TL_MATMUL_BLOCKED 1
#endif
#endif

// GCC vectorizes the micro-kernel once its loops are fully unrolled, and keeps the
// accumulators in registers only while it is a function of its own (inlined into the
// blocking loops, GCC 12 spills them). Clang vectorizes the rolled loops itself, and
// unrolled ones worse (scalar on AArch64), so it gets no unroll pragma.
#if defined(__GNUC__) && !defined(__clang__)
#define TL_MATMUL_UNROLL _Pragma("GCC unroll 32")
#else
#define TL_MATMUL_UNROLL
#endif
#if defined(__GNUC__)
#define TL_MATMUL_NOINLINE __attribute__((noinline))
#else
#define TL_MATMUL_NOINLINE
#endif

namespace tailor::native {

// What matmul() stores: out = beta * bias + alpha * (a @ b), in the accumulation type.
// `bias` (nullptr: none) is read at bias[i * bias_row_stride + j * bias_col_stride], so
// stride 0 broadcasts it along that dimension.
template <typename T>
struct MatmulEpilogue {
  acc_t<T> alpha = acc_t<T>(1);
  acc_t<T> beta = acc_t<T>(1);
  const T* bias = nullptr;
  int64_t bias_row_stride = 0;
  int64_t bias_col_stride = 0;
};

inline int64_t matmul_min(int64_t x, int64_t y) { return x < y ? x : y; }

// matmul() one row of out at a time, 128 columns per pass, k outside j so that a and b
// are read along their rows; the sums of a pass live on the stack in Acc.
template <typename T>
void matmul_rowwise(const T* a, const T* b, T* out, int64_t n, int64_t m, int64_t p,
                    const MatmulEpilogue<T>& ep) {
  using Acc = wrap_acc_t<T>;  // Int and Long wrap (util/wrap.h)
  constexpr int64_t kTile = 128;
  Acc acc[kTile];
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j0 = 0; j0 < p; j0 += kTile) {
      const int64_t count = matmul_min(p - j0, kTile);
      for (int64_t j = 0; j < count; ++j) {
        acc[j] = Acc(0);
      }
      for (int64_t k = 0; k < m; ++k) {
        const Acc a_ik = static_cast<Acc>(a[i * m + k]);
        const T* b_row = b + k * p + j0;
        for (int64_t j = 0; j < count; ++j) {
          acc[j] += a_ik * static_cast<Acc>(b_row[j]);
        }
      }
      for (int64_t j = 0; j < count; ++j) {
        Acc v = ep.alpha * acc[j];
        if (ep.bias != nullptr) {
          v = ep.beta * static_cast<Acc>(
                            ep.bias[i * ep.bias_row_stride + (j0 + j) * ep.bias_col_stride]) +
              v;
        }
        out[i * p + j0 + j] = static_cast<T>(v);
      }
    }
  }
}

// The micro-tile: kMatmulRows rows of out by kMatmulCols<Acc> columns, 8 registers of
// 16 bytes (4 x 8 floats, 4 x 4 doubles, 4 x 32 int8).
inline constexpr int64_t kMatmulRows = 4;
template <typename Acc>
inline constexpr int64_t kMatmulCols = 32 / sizeof(Acc);
// The buffer b's blocks are packed into (from the kernel's scratch slice, runtime/kernel/
// kernel_scratch.h: the manifests' scratch_bytes of mm, bmm, addmm and convolution hold
// it), and the largest depth block (its 4 rows of a, 4 KB in float, stay in L1 beside
// the strip of b they multiply).
inline constexpr int64_t kMatmulPackBytes = 32 * 1024;
inline constexpr int64_t kMatmulDepth = 256;

// The 4 x NR tile c[r, j] (row stride ldc) = (load ? c[r, j] : 0) + sum over k < kc of
// a[r, k] * panel[k, j], accumulated in registers. Rows r >= mr re-read row 0 of a (the
// caller drops their results); `panel` holds kc rows of NR columns, contiguous.
template <typename T, typename Acc, int64_t NR>
TL_MATMUL_NOINLINE void matmul_micro(const T* a, int64_t lda, int64_t mr, const Acc* panel,
                                     int64_t kc, Acc* c, int64_t ldc, bool load) {
  const T* rows[kMatmulRows];
  TL_MATMUL_UNROLL
  for (int64_t r = 0; r < kMatmulRows; ++r) {
    rows[r] = a + (r < mr ? r : 0) * lda;
  }
  Acc acc[kMatmulRows][NR];
  TL_MATMUL_UNROLL
  for (int64_t r = 0; r < kMatmulRows; ++r) {
    TL_MATMUL_UNROLL
    for (int64_t j = 0; j < NR; ++j) {
      acc[r][j] = load ? c[r * ldc + j] : Acc(0);
    }
  }
  for (int64_t k = 0; k < kc; ++k) {
    // The values of a go through a small array first: GCC then vectorizes every row.
    const Acc* b_k = panel + k * NR;
    Acc a_k[kMatmulRows];
    TL_MATMUL_UNROLL
    for (int64_t r = 0; r < kMatmulRows; ++r) {
      a_k[r] = static_cast<Acc>(rows[r][k]);
    }
    TL_MATMUL_UNROLL
    for (int64_t r = 0; r < kMatmulRows; ++r) {
      TL_MATMUL_UNROLL
      for (int64_t j = 0; j < NR; ++j) {
        acc[r][j] += a_k[r] * b_k[j];
      }
    }
  }
  TL_MATMUL_UNROLL
  for (int64_t r = 0; r < kMatmulRows; ++r) {
    TL_MATMUL_UNROLL
    for (int64_t j = 0; j < NR; ++j) {
      c[r * ldc + j] = acc[r][j];
    }
  }
}

// Copies alpha * b[0 .. kc, 0 .. nc) (row stride ldb) into `panel` as strips of NR
// columns, each kc x NR and contiguous, converted to Acc; the last strip is padded with
// zeros. Scaling b here is how alpha reaches the product.
template <typename T, typename Acc, int64_t NR>
void matmul_pack(const T* b, int64_t ldb, int64_t kc, int64_t nc, Acc alpha, Acc* panel) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    const int64_t nr = matmul_min(nc - j0, NR);
    const T* src = b + j0;
    for (int64_t k = 0; k < kc; ++k, src += ldb, panel += NR) {
      if (nr == NR) {
        TL_MATMUL_UNROLL
        for (int64_t j = 0; j < NR; ++j) {
          panel[j] = alpha * static_cast<Acc>(src[j]);
        }
      } else {
        for (int64_t j = 0; j < NR; ++j) {
          panel[j] = j < nr ? alpha * static_cast<Acc>(src[j]) : Acc(0);
        }
      }
    }
  }
}

// matmul(), blocked. Loops, outermost first: column blocks of b (nc columns); depth
// blocks (kc rows), each packed times alpha into `panel` (kMatmulPackBytes); 4-row
// tiles of a; NR-column strips of the packed block, one matmul_micro() call each, which
// starts in the first depth block from beta * bias. Between depth blocks the sums wait in
// out, which holds them exactly only when T is the accumulation type: 16-bit floats take
// the whole depth in one block (m <= 1024 with Half, BFloat16) and beyond that go row by
// row.
template <typename T>
void matmul_blocked(const T* a, const T* b, T* out, int64_t n, int64_t m, int64_t p,
                    const MatmulEpilogue<T>& ep, wrap_acc_t<T>* panel) {
  using Acc = wrap_acc_t<T>;
  constexpr int64_t MR = kMatmulRows;
  constexpr int64_t NR = kMatmulCols<Acc>;
  constexpr int64_t kPackElems = kMatmulPackBytes / static_cast<int64_t>(sizeof(Acc));
  // out holds Acc exactly: T itself, or Int and Long as their unsigned twins.
  constexpr bool kSplitDepth = is_same_v<Acc, T> || is_same_v<Acc, wrap_unsigned_t<T>>;
  const int64_t kc_max = kSplitDepth ? matmul_min(m, kMatmulDepth) : m;
  const int64_t nc_max = kPackElems / (kc_max > 0 ? kc_max : 1) / NR * NR;
  if constexpr (!kSplitDepth) {
    if (nc_max == 0) {
      matmul_rowwise(a, b, out, n, m, p, ep);
      return;
    }
  }

  // beta * bias at (i, j) of out, in Acc.
  auto bias_at = [&ep](int64_t i, int64_t j) {
    return ep.bias == nullptr
               ? Acc(0)
               : ep.beta * static_cast<Acc>(
                               ep.bias[i * ep.bias_row_stride + j * ep.bias_col_stride]);
  };
  Acc tile[MR * NR];
  Acc bias_row[NR];
  for (int64_t jc = 0; jc < p; jc += nc_max) {
    const int64_t nc = matmul_min(p - jc, nc_max);
    int64_t pc = 0;
    do {  // at least once: with m == 0, out = beta * bias
      const int64_t kc = matmul_min(m - pc, kc_max);
      matmul_pack<T, Acc, NR>(b + pc * p + jc, p, kc, nc, ep.alpha, panel);
      for (int64_t i0 = 0; i0 < n; i0 += MR) {
        const int64_t mr = matmul_min(n - i0, MR);
        for (int64_t j0 = 0; j0 < nc; j0 += NR) {
          const int64_t nr = matmul_min(nc - j0, NR);
          const int64_t col = jc + j0;
          T* dst = out + i0 * p + col;
          // A full tile accumulates in out itself when out holds Acc: from zero, from
          // beta * bias written into it first, or (after the first depth block) from what
          // it holds. Any other tile goes through `tile`, zero outside out.
          Acc* c = tile;
          int64_t ldc = NR;
          bool load = true;
          bool direct = false;
          if constexpr (kSplitDepth) {
            if (mr == MR && nr == NR) {
              direct = true;
              c = reinterpret_cast<Acc*>(dst);  // the same type, or its unsigned twin
              ldc = p;
              if (pc == 0 && ep.bias == nullptr) {
                load = false;
              } else if (pc == 0 && ep.bias_row_stride == 0) {  // one bias row for all rows
                for (int64_t j = 0; j < NR; ++j) {
                  bias_row[j] = bias_at(i0, col + j);
                }
                TL_MATMUL_UNROLL
                for (int64_t r = 0; r < MR; ++r) {
                  TL_MATMUL_UNROLL
                  for (int64_t j = 0; j < NR; ++j) {
                    c[r * ldc + j] = bias_row[j];
                  }
                }
              } else if (pc == 0) {
                for (int64_t r = 0; r < MR; ++r) {
                  for (int64_t j = 0; j < NR; ++j) {
                    c[r * ldc + j] = bias_at(i0 + r, col + j);
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
                  v = pc > 0 ? static_cast<Acc>(dst[r * p + j]) : bias_at(i0 + r, col + j);
                }
                tile[r * NR + j] = v;
              }
            }
          }
          matmul_micro<T, Acc, NR>(a + i0 * m + pc, m, mr, panel + j0 * kc, kc, c, ldc, load);
          if (!direct) {
            for (int64_t r = 0; r < mr; ++r) {
              for (int64_t j = 0; j < nr; ++j) {
                dst[r * p + j] = static_cast<T>(tile[r * NR + j]);
              }
            }
          }
        }
      }
      pc += kc;
    } while (pc < m);
  }
}

// out[n, p] = ep.beta * ep.bias + ep.alpha * (a[n, m] @ b[m, p]); a, b and out row-major
// and contiguous, out overlapping neither. Products accumulate in wrap_acc_t<T> (float for
// Half and BFloat16; Int and Long wrap around in two's complement, as in torch) over the whole depth m, in an order that depends on the implementation:
// floating results may differ in the last bits from a plain dot product's. Blocked with
// kMatmulPackBytes of `scratch`; row by row when it has less (or in size builds).
template <typename T>
void matmul(KernelScratch& scratch, const T* a, const T* b, T* out, int64_t n, int64_t m,
            int64_t p, const MatmulEpilogue<T>& ep = MatmulEpilogue<T>()) {
#if TL_MATMUL_BLOCKED
  ScratchScope scope(scratch);
  wrap_acc_t<T>* panel =
      scratch.allocate<wrap_acc_t<T>>(kMatmulPackBytes / sizeof(wrap_acc_t<T>));
  if (panel != nullptr) {
    matmul_blocked(a, b, out, n, m, p, ep, panel);
    return;
  }
#else
  (void)scratch;
#endif
  matmul_rowwise(a, b, out, n, m, p, ep);
}

}  // namespace tailor::native
