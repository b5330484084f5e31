#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/pad_index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// replication_pad2d.out(Tensor self, SymInt[4] padding, *, Tensor(a!) out) -> Tensor(a!)
// Pads the last 2 dims of a 3-d or 4-d input, repeating the edge entries.
Tensor& replication_pad2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                              Tensor& out) {
  // Validate and resize
  PadPlan plan;
  TL_KERNEL_CHECK(ctx,
                  prepare_index_pad("replication_pad2d.out", self, padding, 2,
                                    PadMode::kReplicate, out, &plan),
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "replication_pad2d.out", W, [&] {
    pad_index_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), plan,
                   PadMode::kReplicate);
  });
  return out;
}

}  // namespace tailor::native
