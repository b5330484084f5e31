#include "kernels/portable/util/random_fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// rand.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)
// Values uniform in [0, 1) from the call's random stream (runtime/kernel/random.h), in out's
// dtype.
Tensor& rand_out(KernelContext& ctx, IntArrayRef size, Tensor& out) {
  TL_KERNEL_CHECK_MSG(ctx, resize_tensor(out, size) == Error::Ok, InvalidArgument, out,
                      "rand.out: out cannot take the requested size");
  random_out<TL_SELECTED_DTYPE_MASK("rand.out")>(ctx, "rand.out", out, Distribution::Uniform);
  return out;
}

}  // namespace tailor::native
