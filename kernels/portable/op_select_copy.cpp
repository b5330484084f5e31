#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out) -> Tensor(a!)
// As self[..., index, ...] with `index` in dim `dim`: the result has one dim less.
Tensor& select_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                            int64_t index, Tensor& out) {
  // Validate
  int64_t d = 0;
  int64_t at = 0;
  if (!select_position(ctx, "select_copy.int_out", self, dim, index, &d, &at)) return out;
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize: the slice of length 1 at `at`, without dim d.
  const StridedView view = select_view(self, d, at);
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(view.sizes, view.rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "select_copy.int_out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
