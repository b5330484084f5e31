// Row-major matrix product shared by mm, bmm and addmm.
#pragma once

#include "kernels/portable/util/acc_type.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Columns of the output computed per pass: the accumulators of one pass live on the stack.
inline constexpr int64_t kMatmulTile = 128;

// Computes a[n, m] @ b[m, p] (contiguous) one row tile at a time and hands each tile to
// `store(i, j0, acc, count)`, which writes out[i, j0 .. j0 + count) from the accumulators.
// The k loop sits outside the j loop so both a and b are read along their rows.
template <typename T, typename Store>
void matmul_tiles(const T* a, const T* b, int64_t n, int64_t m, int64_t p, Store&& store) {
  using Acc = acc_t<T>;
  Acc acc[kMatmulTile];
  for (int64_t i = 0; i < n; ++i) {
    const T* a_row = a + i * m;
    for (int64_t j0 = 0; j0 < p; j0 += kMatmulTile) {
      const int64_t count = p - j0 < kMatmulTile ? p - j0 : kMatmulTile;
      for (int64_t j = 0; j < count; ++j) {
        acc[j] = Acc(0);
      }
      for (int64_t k = 0; k < m; ++k) {
        const Acc a_ik = static_cast<Acc>(a_row[k]);
        const T* b_row = b + k * p + j0;
        for (int64_t j = 0; j < count; ++j) {
          acc[j] += a_ik * static_cast<Acc>(b_row[j]);
        }
      }
      store(i, j0, static_cast<const Acc*>(acc), count);
    }
  }
}

// matmul_tiles writing the plain product into contiguous out[n, p].
template <typename T>
void matmul(const T* a, const T* b, T* out, int64_t n, int64_t m, int64_t p) {
  matmul_tiles(a, b, n, m, p, [&](int64_t i, int64_t j0, const acc_t<T>* acc, int64_t count) {
    T* dst = out + i * p + j0;
    for (int64_t j = 0; j < count; ++j) {
      dst[j] = static_cast<T>(acc[j]);
    }
  });
}

}  // namespace tailor::native
