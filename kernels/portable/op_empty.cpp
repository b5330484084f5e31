#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out)
//     -> Tensor(a!)
// out resized to `size`; its values are whatever its memory holds, as in torch.
Tensor& empty_out(KernelContext& ctx, IntArrayRef size, Optional<int64_t> memory_format,
                  Tensor& out) {
  (void)memory_format;  // out's planned dim order decides the layout
  TL_KERNEL_CHECK_MSG(ctx, resize_tensor(out, size) == Error::Ok, InvalidArgument, out,
                      "empty.out: out cannot take the requested size");
  return out;
}

}  // namespace tailor::native
