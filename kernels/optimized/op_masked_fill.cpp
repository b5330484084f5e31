#include "kernels/optimized/util/where.h"
#include "kernels/portable/util/masked_fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {
namespace {

// out = mask ? fill : self as where's vector loop (where(mask, fill, self)) when the mask
// is Bool, self and out Float and both span out in one of BinarySpan's ways (attention's
// [T, T] causal mask over [B, H, T, T]); false when the call is not of that kind.
bool masked_fill_fast(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                      const float* fill, Tensor& out) {
  if (mask.dtype() != ScalarType::Bool || self.dtype() != ScalarType::Float ||
      out.dtype() != ScalarType::Float) {
    return false;
  }
  const Tensor* in[2] = {&mask, &self};
  BinarySpan spans[2];
  int64_t cols = 0;
  if (!where_spans(in, 2, out, spans, &cols)) return false;
  const int64_t numel = static_cast<int64_t>(out.numel());
  if (numel > 0) {
    where_rows_parallel(ctx, WhereCondition{mask.const_data<uint8_t>(), spans[0]},
                        BinaryOperand{fill, BinarySpan::Single},
                        BinaryOperand{self.const_data<float>(), spans[1]},
                        out.mutable_data<float>(), numel / cols, cols);
  }
  return true;
}

}  // namespace

// masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = mask ? value : self; Float on vectors (masked_fill_fast), anything else through
// portable's elementwise loop.
Tensor& masked_fill_scalar_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                               const Scalar& value, Tensor& out) {
  // Validate (as portable's masked_fill_scalar_out)
  if (!tailor::native::check_masked_fill_out(ctx, "masked_fill.Scalar_out", self, mask,
                                             nullptr, out)) {
    return out;
  }

  // Compute
  const float fill = value.to<float>();
  if (masked_fill_fast(ctx, self, mask, &fill, out)) return out;
  tailor::native::masked_fill_elementwise<TL_SELECTED_DTYPE_MASK("masked_fill.Scalar_out")>(
      ctx, "masked_fill.Scalar_out", self, mask, value, nullptr, out);
  return out;
}

// masked_fill.Tensor_out(Tensor self, Tensor mask, Tensor value, *, Tensor(a!) out)
//     -> Tensor(a!)
// The same with a 0-dim value tensor (Float on vectors).
Tensor& masked_fill_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                               const Tensor& value, Tensor& out) {
  // Validate (as portable's masked_fill_tensor_out)
  if (!tailor::native::check_masked_fill_out(ctx, "masked_fill.Tensor_out", self, mask, &value,
                                             out)) {
    return out;
  }

  // Compute
  if (value.dtype() == ScalarType::Float &&
      masked_fill_fast(ctx, self, mask, value.const_data<float>(), out)) {
    return out;
  }
  tailor::native::masked_fill_elementwise<TL_SELECTED_DTYPE_MASK("masked_fill.Tensor_out")>(
      ctx, "masked_fill.Tensor_out", self, mask, Scalar(), &value, out);
  return out;
}

}  // namespace tailor::optimized::native
