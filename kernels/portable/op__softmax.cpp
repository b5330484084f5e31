#include "kernels/portable/util/softmax.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// _softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)
// Along any dim (negative counts from the end); 16-bit floats are computed in float.
Tensor& _softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                   Tensor& out) {
  // Validate
  SoftmaxSplit split;
  TL_KERNEL_CHECK(ctx, check_softmax_out("_softmax.out", self, dim, half_to_float, out, &split),
                  InvalidArgument, out);

  // Compute
  if (self.numel() == 0) {
    return out;
  }
  TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "_softmax.out", T, [&] {
    softmax_rows(self.const_data<T>(), out.mutable_data<T>(), split, false);
  });
  return out;
}

}  // namespace tailor::native
