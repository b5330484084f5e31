#include "kernels/portable/util/element_word.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// alias_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// aten.alias exports as this copy (the runtime has no aliasing views): self's bytes, the
// same code for every dtype; only selected dtypes pass.
Tensor& alias_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);
  TL_KERNEL_CHECK(ctx, same_dtype_and_dim_order(self, out), InvalidArgument, out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "alias_copy.out", self.dtype(), out);

  // Copy
  if (self.nbytes() > 0 && out.data() != self.data()) {
    __builtin_memcpy(out.data(), self.data(), self.nbytes());
  }
  return out;
}

}  // namespace tailor::native
