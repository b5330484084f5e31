#include "kernels/optimized/util/binary.h"
#include "kernels/optimized/util/vec.h"
#include "kernels/optimized/util/where.h"
#include "kernels/portable/util/where.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// Whether the fast path runs: Bool condition, Float values, and every operand spans out
// in one of BinarySpan's ways with one row length; sets *cols to that length (the whole
// out when no operand is a Row or a Column).
bool where_fast_path(const Tensor& condition, const Tensor& self, const Tensor& other,
                     const Tensor& out, BinarySpan spans[3], int64_t* cols) {
  if (condition.dtype() != ScalarType::Bool || self.dtype() != ScalarType::Float ||
      other.dtype() != ScalarType::Float || out.dtype() != ScalarType::Float) {
    return false;
  }
  const Tensor* in[3] = {&condition, &self, &other};
  return where_spans(in, 3, out, spans, cols);
}

}  // namespace

// where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = condition ? self : other, all three broadcast. A Bool condition with Float self
// and other runs on vectors, split over the threads by rows, when each operand is out's
// shape, one element, a block of out's last dims (attention's [T, T] mask over [B, H, T,
// T], -inf as a 0-dim tensor) or one element per row of them;
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
    where_rows_parallel(ctx, WhereCondition{condition.const_data<uint8_t>(), spans[0]},
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
