// Outputs whose size depends on the data (nonzero, masked_select): the exporter plans
// them at an upper bound (torch.export's range of the size, at most the input's element
// count at its upper bounds; torch._check in the model can lower it), and the kernel sets
// the size it finds. A result past the planned bound fails the call with this message.
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Resizes `out` to `sizes`; false (ctx failed, naming `op`, the size and the capacity)
// when the planned memory cannot hold it.
inline bool resize_data_dependent(KernelContext& ctx, const char* op, Tensor& out,
                                  IntArrayRef sizes) {
  int64_t numel = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    numel *= sizes[i];
  }
  TL_KERNEL_CHECK_MSG(
      ctx, resize_tensor(out, sizes) == Error::Ok, InvalidArgument, false,
      "%s: the result has %lld elements, more than the %lld its out tensor was planned for "
      "(its upper bound at export; a torch._check in the model may have lowered it)",
      op, static_cast<long long>(numel),
      static_cast<long long>(out.capacity_bytes() / out.element_size()));
  return true;
}

}  // namespace tailor::native
