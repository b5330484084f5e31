#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// t_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Transposes a 2-d tensor; 0-d and 1-d tensors are copied unchanged.
Tensor& t_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, self.dim() <= 2, InvalidArgument, out,
                      "t_copy.out: input has %lld dims; t() takes at most 2",
                      static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && is_default_dim_order(self) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize
  StridedView view = contiguous_view(self);
  if (self.dim() == 2) {
    view.sizes[0] = self.size(1);
    view.sizes[1] = self.size(0);
    view.strides[0] = 1;
    view.strides[1] = self.size(1);
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(view.sizes, view.rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "t_copy.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
