#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/pad_index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// reflection_pad3d.out(Tensor self, SymInt[6] padding, *, Tensor(a!) out) -> Tensor(a!)
// Pads the last 3 dims of a 4-d or 5-d input, mirrored about the edge (which is not repeated).
Tensor& reflection_pad3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                             Tensor& out) {
  // Validate and resize
  PadPlan plan;
  TL_KERNEL_CHECK(ctx,
                  prepare_index_pad("reflection_pad3d.out", self, padding, 3,
                                    PadMode::kReflect, out, &plan),
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "reflection_pad3d.out", W, [&] {
    pad_index_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), plan,
                   PadMode::kReflect);
  });
  return out;
}

}  // namespace tailor::native
