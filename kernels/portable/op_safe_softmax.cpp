#include "kernels/portable/util/softmax.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// tailor_nn::safe_softmax.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)
// (exporter/safe_softmax.py): softmax along dim, but 0 for rows of only -inf.
Tensor& safe_softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  // Validate
  SoftmaxSplit split;
  TL_KERNEL_CHECK(ctx, check_softmax_out("tailor_nn::safe_softmax.out", self, dim, false, out, &split),
                  InvalidArgument, out);

  // Compute
  if (self.numel() == 0) {
    return out;
  }
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "tailor_nn::safe_softmax.out", T, [&] {
    softmax_rows(self.const_data<T>(), out.mutable_data<T>(), split, false);
    zero_masked_rows(self.const_data<T>(), out.mutable_data<T>(), split);
  });
  return out;
}

}  // namespace tailor::native
