#include "kernels/portable/util/random_fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// rand_like.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)
// Values uniform in [0, 1) from the call's random stream (runtime/kernel/random.h), in out's
// dtype; self gives the shape only.
Tensor& rand_like_out(KernelContext& ctx, const Tensor& self, Optional<int64_t> memory_format,
                      Tensor& out) {
  (void)memory_format;  // out's own dim order (contiguous, checked) decides
  TL_KERNEL_CHECK_MSG(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out,
                      "rand_like.out: out cannot take self's shape");
  random_out<TL_SELECTED_DTYPE_MASK("rand_like.out")>(ctx, "rand_like.out", out,
                                                    Distribution::Uniform);
  return out;
}

}  // namespace tailor::native
