#include "kernels/optimized/util/softmax_rows.h"
#include "kernels/portable/util/softmax.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// tailor_nn::safe_softmax.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)
// (exporter/safe_softmax.py): softmax, but 0 for rows of only -inf. Float only (the
// other dtypes go to portable). Along the last dim (attention's scores), rows of
// vectors; along another, portable's strided rows.
Tensor& safe_softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  // Validate
  tailor::native::SoftmaxSplit split;
  TL_KERNEL_CHECK(ctx,
                  tailor::native::check_softmax_out("tailor_nn::safe_softmax.out", self, dim,
                                                    false, out, &split) &&
                      out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute
  if (self.numel() == 0) {
    return out;
  }
  const float* in = self.const_data<float>();
  float* o = out.mutable_data<float>();
  if (split.inner == 1) {
    softmax_rows_parallel<true>(ctx, in, o, split.outer, split.n);
  } else {
    tailor::native::softmax_rows(in, o, split, false);
    tailor::native::zero_masked_rows(in, o, split);
  }
  return out;
}

}  // namespace tailor::optimized::native
