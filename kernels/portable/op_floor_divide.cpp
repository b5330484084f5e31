#include "kernels/portable/util/binary.h"
#include "kernels/portable/util/divide.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// div(self, other, rounding_mode="floor"), broadcast and promoted as torch does; an
// integer division by zero fails the call (torch raises ZeroDivisionError).
Tensor& floor_divide_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                         Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_binary_out("floor_divide.out", self, other, out), InvalidArgument,
                  out);

  // Compute
  const Tensor* in[2] = {&self, &other};
  div_detail::run<TL_SELECTED_DTYPE_MASK("floor_divide.out")>(
      ctx, "floor_divide.out", in, Scalar(), div_detail::Mode::Floor, out);
  return out;
}

// floor_divide.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
// What `x // 2` calls: the same with a Scalar divisor.
Tensor& floor_divide_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                                Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_scalar_out("floor_divide.Scalar_out", self, other, out),
                  InvalidArgument, out);

  // Compute
  const Tensor* in[1] = {&self};
  div_detail::run<TL_SELECTED_DTYPE_MASK("floor_divide.Scalar_out")>(
      ctx, "floor_divide.Scalar_out", in, other, div_detail::Mode::Floor, out);
  return out;
}

}  // namespace tailor::native
