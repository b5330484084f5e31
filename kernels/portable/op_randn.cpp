#include "kernels/portable/util/random_fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// randn.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)
// Values standard normal from the call's random stream (runtime/kernel/random.h), in out's
// dtype.
Tensor& randn_out(KernelContext& ctx, IntArrayRef size, Tensor& out) {
  TL_KERNEL_CHECK_MSG(ctx, resize_tensor(out, size) == Error::Ok, InvalidArgument, out,
                      "randn.out: out cannot take the requested size");
  random_out<TL_SELECTED_DTYPE_MASK("randn.out")>(ctx, "randn.out", out, Distribution::Normal);
  return out;
}

}  // namespace tailor::native
