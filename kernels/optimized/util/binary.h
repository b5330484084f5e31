// Float add, sub, mul and div with fast paths (kernels/optimized/op_{add,sub,mul,div}.cpp).
//
// Contiguous operands whose broadcast is one of the common ones run on vectors
// (util/vec.h): both of the out's shape; one a single element; one a block of the
// out's last dims repeated over rows (a bias [n] over [rows, n], a position table
// [T, C] over [1, T, C]); or one an element per row of the out's last dims (a
// squeeze-excitation's channel scale [1, C, 1, 1] over [1, C, H, W]). Any other
// broadcast goes through portable's apply_elementwise, which handles every shape.
#pragma once

#include "kernels/optimized/util/vec_parallel.h"
#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized {

enum class BinaryKind { Add, Sub, Mul, Div };

// x = x op y (a float or a vector); add and sub scale y by alpha, as torch's add.out
// and sub.out do.
template <BinaryKind kKind, typename V>
TL_VEC_INLINE void binary_apply(V& x, const V& y, float alpha) {
  if constexpr (kKind == BinaryKind::Add) {
    x += alpha * y;
  } else if constexpr (kKind == BinaryKind::Sub) {
    x -= alpha * y;
  } else if constexpr (kKind == BinaryKind::Mul) {
    x *= y;
  } else {
    x /= y;
  }
}

// How an operand spans the out's rows of `cols` elements.
enum class BinarySpan {
  Full,    // all of out's elements: moves by cols a row
  Row,     // one row, the same for every row
  Single,  // one element for all
  Column,  // one element per row: moves by 1 a row
};

struct BinaryOperand {
  const float* data;
  BinarySpan span;
};

TL_VEC_INLINE bool one_per_row(const BinaryOperand& in) {
  return in.span == BinarySpan::Single || in.span == BinarySpan::Column;
}

// Elements an operand of `span` moves by from one row of `cols` to the next.
TL_VEC_INLINE int64_t binary_row_step(BinarySpan span, int64_t cols) {
  return span == BinarySpan::Full ? cols : span == BinarySpan::Column ? 1 : 0;
}

// Where an operand of `span` holds out's element at row r, column c.
inline int64_t binary_offset(BinarySpan span, int64_t cols, int64_t r, int64_t c) {
  switch (span) {
    case BinarySpan::Full:
      return r * cols + c;
    case BinarySpan::Row:
      return c;
    case BinarySpan::Column:
      return r;
    default:
      return 0;
  }
}

template <int W>
TL_VEC_INLINE void binary_load(const BinaryOperand& in, int64_t i, VecF<W>& v) {
  if (one_per_row(in)) {
    v = VecF<W>{} + in.data[0];
  } else {
    vec_load<W>(in.data + i, v);
  }
}

template <BinaryKind kKind>
struct BinaryRows {
  template <int W>
  TL_VEC_INLINE static void run(BinaryOperand a, BinaryOperand b, float* out, int64_t rows,
                                int64_t cols, float alpha) {
    VecF<W> x;
    VecF<W> y;
    for (int64_t r = 0; r < rows; ++r, out += cols) {
      int64_t i = 0;
      for (; i + W <= cols; i += W) {
        binary_load<W>(a, i, x);
        binary_load<W>(b, i, y);
        binary_apply<kKind>(x, y, alpha);
        vec_store<W>(out + i, x);
      }
      for (; i < cols; ++i) {
        float xi = a.data[one_per_row(a) ? 0 : i];
        binary_apply<kKind>(xi, b.data[one_per_row(b) ? 0 : i], alpha);
        out[i] = xi;
      }
      a.data += binary_row_step(a.span, cols);
      b.data += binary_row_step(b.span, cols);
    }
  }
};

// The operand's elements from row r, column c on.
inline BinaryOperand binary_at(const BinaryOperand& in, int64_t cols, int64_t r, int64_t c) {
  return BinaryOperand{in.data + binary_offset(in.span, cols, r, c), in.span};
}

/// fn(r, c, rows, cols) over blocks of out's `rows` rows of `cols` elements on ctx's
/// threads: chunks of whole rows, or of one row's columns (kVecGrain apart, so a chunk's
/// ragged end, whose elements go one by one, is the row's own).
template <typename F>
void rows_parallel(KernelContext& ctx, int64_t rows, int64_t cols, const F& fn) {
  if (rows == 1) {
    ctx.parallel_range(
        cols, kVecCostSimple,
        [&](int64_t begin, int64_t end, KernelScratch&) { fn(0, begin, 1, end - begin); },
        kVecGrain);
    return;
  }
  ctx.parallel_range(rows, cols * kVecCostSimple,
                     [&](int64_t begin, int64_t end, KernelScratch&) {
                       fn(begin, 0, end - begin, cols);
                     });
}

/// vec_run<BinaryRows<kKind>>(a, b, out, rows, cols, alpha) over ctx's threads.
template <BinaryKind kKind>
void binary_rows_parallel(KernelContext& ctx, const BinaryOperand& a, const BinaryOperand& b,
                          float* out, int64_t rows, int64_t cols, float alpha) {
  rows_parallel(ctx, rows, cols, [&](int64_t r, int64_t c, int64_t n, int64_t width) {
    vec_run<BinaryRows<kKind>>(binary_at(a, cols, r, c), binary_at(b, cols, r, c),
                               out + r * cols + c, n, width, alpha);
  });
}

// The span of `t` over `out` (both contiguous) and, for a Row or a Column, the out's
// row length in *cols; false when it is none of the four.
inline bool binary_span_of(const Tensor& t, const Tensor& out, BinarySpan* span,
                           int64_t* cols) {
  if (t.numel() == out.numel()) {
    *span = BinarySpan::Full;
    return true;
  }
  if (t.numel() == 1) {
    *span = BinarySpan::Single;
    return true;
  }
  if (t.dim() > out.dim()) return false;
  // A row: t's sizes, leading ones aside, are out's last ones.
  int64_t first = 0;
  while (first < t.dim() && t.size(first) == 1) ++first;
  bool row = true;
  for (int64_t d = first; d < t.dim(); ++d) {
    row = row && t.size(d) == out.size(out.dim() - t.dim() + d);
  }
  if (row) {
    *span = BinarySpan::Row;
    *cols = static_cast<int64_t>(t.numel());
    return true;
  }
  // A column: t's sizes, trailing ones aside, are out's first ones (t's dims line up
  // with out's last ones, so the dims out has before them must be ones).
  const int64_t skip = out.dim() - t.dim();
  int64_t last = t.dim();
  while (last > 0 && t.size(last - 1) == 1) --last;
  for (int64_t d = 0; d < skip; ++d) {
    if (out.size(d) != 1) return false;
  }
  for (int64_t d = 0; d < last; ++d) {
    if (t.size(d) != out.size(skip + d)) return false;
  }
  *span = BinarySpan::Column;
  *cols = static_cast<int64_t>(out.numel() / t.numel());
  return true;
}

/// out = a op b (add, sub: a op alpha * b) for Float tensors: validates (as portable's
/// check_binary_out, Float only), resizes out, computes; `op` and kMask name the op for
/// the log and the general fallback.
template <BinaryKind kKind, uint32_t kMask>
Tensor& float_binary_out(KernelContext& ctx, const char* op, const Tensor& a, const Tensor& b,
                         float alpha, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx,
                  tailor::native::check_binary_out(op, a, b, out) &&
                      out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute
  const int64_t numel = static_cast<int64_t>(out.numel());
  if (numel == 0) return out;
  BinarySpan span_a;
  BinarySpan span_b;
  int64_t cols_a = numel;
  int64_t cols_b = numel;
  // Rows and columns set the out's row length; two of them must agree on it.
  auto shaped = [](BinarySpan span) {
    return span == BinarySpan::Row || span == BinarySpan::Column;
  };
  if (binary_span_of(a, out, &span_a, &cols_a) && binary_span_of(b, out, &span_b, &cols_b) &&
      (!shaped(span_a) || !shaped(span_b) || cols_a == cols_b)) {
    const int64_t cols = shaped(span_a) ? cols_a : cols_b;
    binary_rows_parallel<kKind>(ctx, BinaryOperand{a.const_data<float>(), span_a},
                                BinaryOperand{b.const_data<float>(), span_b},
                                out.mutable_data<float>(), numel / cols, cols, alpha);
    return out;
  }
  const Tensor* in[2] = {&a, &b};
  tailor::native::apply_elementwise<float, float, kMask>(ctx, op, in, out,
                                                         [alpha](float x, float y) {
                                                           binary_apply<kKind>(x, y, alpha);
                                                           return x;
                                                         });
  return out;
}

}  // namespace tailor::optimized
