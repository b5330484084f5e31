#include "kernels/optimized/util/logistic.h"
#include "kernels/optimized/util/vec_parallel.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// sigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Float only (the other dtypes go to portable).
Tensor& sigmoid_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx,
                  tailor::native::check_unary_out("sigmoid.out", self, ScalarType::Float, out) &&
                      self.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute
  vec_parallel_span<LogisticSpan<false>>(ctx, static_cast<int64_t>(self.numel()),
                                         kVecCostPolynomial, self.const_data<float>(),
                                         out.mutable_data<float>());
  return out;
}

}  // namespace tailor::optimized::native
