#include "kernels/portable/util/compare.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// gt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
// out = self > other (Bool), broadcast, compared in torch's result dtype.
Tensor& gt_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                      Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_compare_out("gt.Tensor_out", self, other, out), InvalidArgument,
                  out);

  // Compute
  const Tensor* in[2] = {&self, &other};
  TL_PORTABLE_COMPARE(ctx, "gt.Tensor_out", result_type(self, other), in, Scalar(), out,
                      x > y);
  return out;
}

// gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
Tensor& gt_scalar_out(KernelContext& ctx, const Tensor& self, const Scalar& other,
                      Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, check_compare_scalar_out("gt.Scalar_out", self, out), InvalidArgument,
                  out);

  // Compute
  const Tensor* in[1] = {&self};
  TL_PORTABLE_COMPARE(ctx, "gt.Scalar_out", result_type(self, other), in, other, out,
                      x > y);
  return out;
}

}  // namespace tailor::native
