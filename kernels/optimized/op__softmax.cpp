#include "kernels/optimized/util/softmax_rows.h"
#include "kernels/portable/util/softmax.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::optimized::native {

// _softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)
// Float only (the other dtypes go to portable). Along the last dim (attention's
// softmax), rows of vectors; along another, portable's strided rows.
Tensor& _softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                     Tensor& out) {
  // Validate
  tailor::native::SoftmaxSplit split;
  TL_KERNEL_CHECK(ctx,
                  tailor::native::check_softmax_out("_softmax.out", self, dim, half_to_float,
                                                    out, &split) &&
                      out.dtype() == ScalarType::Float,
                  InvalidArgument, out);

  // Compute
  if (self.numel() == 0) {
    return out;
  }
  if (split.inner == 1) {
    softmax_rows_parallel<false>(ctx, self.const_data<float>(), out.mutable_data<float>(),
                                 split.outer, split.n);
  } else {
    tailor::native::softmax_rows(self.const_data<float>(), out.mutable_data<float>(), split,
                                 false);
  }
  return out;
}

}  // namespace tailor::optimized::native
