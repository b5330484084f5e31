#include "kernels/optimized/util/binary.h"
#include "kernels/optimized/util/vec.h"
#include "kernels/portable/util/where.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

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

// out = src over rows of cols elements: a single-element condition picks one operand.
template <int W>
TL_VEC_INLINE void where_copy(BinaryOperand src, float* out, int64_t rows, int64_t cols) {
  VecF<W> x;
  for (int64_t r = 0; r < rows; ++r, out += cols) {
    int64_t i = 0;
    for (; i + W <= cols; i += W) {
      binary_load<W>(src, i, x);
      vec_store<W>(out + i, x);
    }
    for (; i < cols; ++i) out[i] = src.data[src.span == BinarySpan::Single ? 0 : i];
    if (src.span == BinarySpan::Full) src.data += cols;
  }
}

// out = condition ? a : b over `rows` rows of `cols` elements; an operand that spans a
// Row reads the same row each time, a Single one its one element.
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
      int64_t i = 0;
      for (; i + W <= cols; i += W) {
        where_condition<W>(c.data + i, m);
        binary_load<W>(a, i, x);
        binary_load<W>(b, i, y);
        // One compare and a blend: nonzero bytes take a.
        vec_store<W>(out + i, m != 0 ? x : y);
      }
      for (; i < cols; ++i) {
        out[i] = c.data[i] != 0 ? a.data[a.span == BinarySpan::Single ? 0 : i]
                                : b.data[b.span == BinarySpan::Single ? 0 : i];
      }
      if (c.span == BinarySpan::Full) c.data += cols;
      if (a.span == BinarySpan::Full) a.data += cols;
      if (b.span == BinarySpan::Full) b.data += cols;
    }
  }
};

// Whether the fast path runs: Bool condition, Float values, and every operand spans out
// in one of BinarySpan's ways with one row length; sets *cols to that length (the whole
// out when no operand is a Row).
bool where_fast_path(const Tensor& condition, const Tensor& self, const Tensor& other,
                     const Tensor& out, BinarySpan spans[3], int64_t* cols) {
  if (condition.dtype() != ScalarType::Bool || self.dtype() != ScalarType::Float ||
      other.dtype() != ScalarType::Float || out.dtype() != ScalarType::Float) {
    return false;
  }
  const Tensor* in[3] = {&condition, &self, &other};
  *cols = static_cast<int64_t>(out.numel());
  int64_t row = -1;  // the Row operands' length, once one is seen
  for (int k = 0; k < 3; ++k) {
    int64_t length = 0;
    if (!binary_span_of(*in[k], out, &spans[k], &length)) return false;
    if (spans[k] != BinarySpan::Row) continue;
    if (row >= 0 && length != row) return false;
    row = length;
  }
  if (row > 0) *cols = row;
  return true;
}

}  // namespace

// where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = condition ? self : other, all three broadcast. A Bool condition with Float self
// and other runs on vectors when each operand is out's shape, one element, or a block of
// out's last dims (attention's [T, T] mask over [B, H, T, T], -inf as a 0-dim tensor);
// anything else (other dtypes, other broadcasts) runs portable's elementwise loop.
Tensor& where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                       const Tensor& other, Tensor& out) {
  // Validate (as portable's where_self_out)
  if (!tailor::native::check_where_out(ctx, condition, self, other, out)) return out;

  // Compute
  const int64_t numel = static_cast<int64_t>(out.numel());
  if (numel == 0) return out;
  BinarySpan spans[3];
  int64_t cols = numel;
  if (where_fast_path(condition, self, other, out, spans, &cols)) {
    vec_run<WhereRows>(WhereCondition{condition.const_data<uint8_t>(), spans[0]},
                       BinaryOperand{self.const_data<float>(), spans[1]},
                       BinaryOperand{other.const_data<float>(), spans[2]},
                       out.mutable_data<float>(), numel / cols, cols);
    return out;
  }
  // The general path: portable's loop.
  tailor::native::where_elementwise<TL_SELECTED_DTYPE_MASK("where.self_out")>(
      ctx, condition, self, other, out);
  return out;
}

}  // namespace tailor::optimized::native
