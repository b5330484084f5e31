// where's vector loop over a Bool condition and Float operands, each spanning out in one
// of BinarySpan's ways (a column too: one element a row), split over the threads by rows:
// shared by where.self_out and masked_fill (where(mask, value, self)).
#pragma once

#include "kernels/optimized/util/binary.h"
#include "kernels/optimized/util/vec.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// The Bool condition as it spans out's rows, as BinaryOperand does a float operand.
struct WhereCondition {
  const uint8_t* data;
  BinarySpan span;
};

// m = the W condition bytes at c, one 32-bit lane each. Widened
// in two steps, bytes to 16 then to 32 bits: GCC 12 splits a one-step widening (or a
// lane-by-lane fill) into scalar moves or stack round trips, but turns each of these
// into zero-extending moves.
// (The vector typedefs sit in a class template, as Vec's: GCC drops vector_size with a
// dependent size from a typedef local to a function template.)
template <int W>
struct ConditionVec {
  typedef uint8_t Bytes __attribute__((vector_size(W)));
  typedef uint16_t Halves __attribute__((vector_size(2 * W)));
};

template <int W>
TL_VEC_INLINE void where_condition(const uint8_t* c, typename Vec<W>::I& m) {
  typename ConditionVec<W>::Bytes bytes;
  __builtin_memcpy(&bytes, c, sizeof(bytes));
  m = __builtin_convertvector(__builtin_convertvector(bytes, typename ConditionVec<W>::Halves),
                              typename Vec<W>::I);
}

// out = src over rows of cols elements: a condition that is one element (for all rows or
// for a row) picks one operand.
template <int W>
TL_VEC_INLINE void where_copy(BinaryOperand src, float* out, int64_t rows, int64_t cols) {
  VecF<W> x;
  for (int64_t r = 0; r < rows; ++r, out += cols) {
    int64_t i = 0;
    for (; i + W <= cols; i += W) {
      binary_load<W>(src, i, x);
      vec_store<W>(out + i, x);
    }
    for (; i < cols; ++i) out[i] = src.data[one_per_row(src) ? 0 : i];
    src.data += binary_row_step(src.span, cols);
  }
}

// out = condition ? a : b over `rows` rows of `cols` elements; an operand that spans a
// Row reads the same row each time, a Single one its one element, a Column one element
// a row.
struct WhereRows {
  template <int W>
  TL_VEC_INLINE static void run(WhereCondition c, BinaryOperand a, BinaryOperand b, float* out,
                                int64_t rows, int64_t cols) {
    if (c.span == BinarySpan::Single) {
      where_copy<W>(c.data[0] != 0 ? a : b, out, rows, cols);
      return;
    }
    typename Vec<W>::I m;
    VecF<W> x;
    VecF<W> y;
    for (int64_t r = 0; r < rows; ++r, out += cols) {
      if (c.span == BinarySpan::Column) {
        where_copy<W>(c.data[0] != 0 ? a : b, out, 1, cols);
      } else {
        int64_t i = 0;
        for (; i + W <= cols; i += W) {
          where_condition<W>(c.data + i, m);
          binary_load<W>(a, i, x);
          binary_load<W>(b, i, y);
          // One compare and a blend: nonzero bytes take a.
          vec_store<W>(out + i, m != 0 ? x : y);
        }
        for (; i < cols; ++i) {
          out[i] = c.data[i] != 0 ? a.data[one_per_row(a) ? 0 : i]
                                  : b.data[one_per_row(b) ? 0 : i];
        }
      }
      c.data += binary_row_step(c.span, cols);
      a.data += binary_row_step(a.span, cols);
      b.data += binary_row_step(b.span, cols);
    }
  }
};

/// vec_run<WhereRows> over ctx's threads (rows_parallel).
inline void where_rows_parallel(KernelContext& ctx, const WhereCondition& c,
                                const BinaryOperand& a, const BinaryOperand& b, float* out,
                                int64_t rows, int64_t cols) {
  rows_parallel(ctx, rows, cols, [&](int64_t r, int64_t i, int64_t n, int64_t width) {
    vec_run<WhereRows>(WhereCondition{c.data + binary_offset(c.span, cols, r, i), c.span},
                       binary_at(a, cols, r, i), binary_at(b, cols, r, i), out + r * cols + i,
                       n, width);
  });
}

// Whether each of the `n` tensors `in` spans out as a Single, a Row, a Column or a Full
// operand with one row length; sets spans[k] and *cols to that length (the whole out when
// no operand is a Row or a Column).
inline bool where_spans(const Tensor* const* in, int n, const Tensor& out, BinarySpan* spans,
                        int64_t* cols) {
  *cols = static_cast<int64_t>(out.numel());
  int64_t row = -1;  // the Row and Column operands' row length, once one is seen
  for (int k = 0; k < n; ++k) {
    int64_t length = 0;
    if (!binary_span_of(*in[k], out, &spans[k], &length)) return false;
    if (spans[k] != BinarySpan::Row && spans[k] != BinarySpan::Column) continue;
    if (row >= 0 && length != row) return false;
    row = length;
  }
  if (row > 0) *cols = row;
  return true;
}

}  // namespace tailor::optimized::native
