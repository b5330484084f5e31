// Shared by tril.out and triu.out: keep one triangle of each matrix (the last two dims)
// and zero the rest.
#pragma once

#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Copies each rows x cols matrix of `src` into `dst`, keeping column j of row i when
// j - i <= diagonal (lower) or j - i >= diagonal (upper) and writing zero bits elsewhere
// (0, +0.0 and false in every dtype).
template <typename W>
void triangle_copy(const W* src, W* dst, int64_t matrices, int64_t rows, int64_t cols,
                   int64_t diagonal, bool lower) {
  // Past these bounds every row keeps all or nothing; clamping keeps i + diagonal finite.
  diagonal = diagonal < -rows - 1 ? -rows - 1 : (diagonal > cols + 1 ? cols + 1 : diagonal);
  for (int64_t m = 0; m < matrices; ++m) {
    for (int64_t i = 0; i < rows; ++i, src += cols, dst += cols) {
      // Row i keeps columns [begin, end).
      int64_t begin = lower ? 0 : i + diagonal;
      int64_t end = lower ? i + diagonal + 1 : cols;
      begin = begin < 0 ? 0 : (begin > cols ? cols : begin);
      end = end < begin ? begin : (end > cols ? cols : end);
      for (int64_t j = 0; j < begin; ++j) {
        dst[j] = W(0);
      }
      if (end > begin) {
        __builtin_memcpy(dst + begin, src + begin, static_cast<size_t>(end - begin) * sizeof(W));
      }
      for (int64_t j = end; j < cols; ++j) {
        dst[j] = W(0);
      }
    }
  }
}

// Checks the arguments of tril/triu (`op`), resizes out like self and gives the matrix
// count and shape; false (logged) when they do not fit.
inline bool prepare_triangle(const char* op, const Tensor& self, Tensor& out,
                             int64_t* matrices, int64_t* rows, int64_t* cols) {
  const int64_t rank = self.dim();
  if (rank < 2) {
    TL_LOG(Error, "%s: self must have 2 or more dims, got %lld", op, static_cast<long long>(rank));
    return false;
  }
  if (!same_dtype(self, out) || !is_default_dim_order(self) || !is_default_dim_order(out) ||
      resize_like(out, self) != Error::Ok) {
    TL_LOG(Error, "%s: out must be contiguous and take self's dtype and shape", op);
    return false;
  }
  *rows = self.size(rank - 2);
  *cols = self.size(rank - 1);
  *matrices = 1;
  for (int64_t d = 0; d < rank - 2; ++d) {
    *matrices *= self.size(d);
  }
  return true;
}

}  // namespace tailor::native
