#include "kernels/portable/util/masked_fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = mask ? value : self, self and the Bool mask broadcast; out has self's dtype.
Tensor& masked_fill_scalar_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                               const Scalar& value, Tensor& out) {
  // Validate
  if (!check_masked_fill_out(ctx, "masked_fill.Scalar_out", self, mask, nullptr, out)) {
    return out;
  }

  // Compute
  masked_fill_elementwise<TL_SELECTED_DTYPE_MASK("masked_fill.Scalar_out")>(
      ctx, "masked_fill.Scalar_out", self, mask, value, nullptr, out);
  return out;
}

// masked_fill.Tensor_out(Tensor self, Tensor mask, Tensor value, *, Tensor(a!) out)
//     -> Tensor(a!)
// The same with the value a 0-dim tensor of any dtype.
Tensor& masked_fill_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                               const Tensor& value, Tensor& out) {
  // Validate
  if (!check_masked_fill_out(ctx, "masked_fill.Tensor_out", self, mask, &value, out)) {
    return out;
  }

  // Compute
  masked_fill_elementwise<TL_SELECTED_DTYPE_MASK("masked_fill.Tensor_out")>(
      ctx, "masked_fill.Tensor_out", self, mask, Scalar(), &value, out);
  return out;
}

}  // namespace tailor::native
