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
  TL_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && normalize_dim(dim, self.dim(), &d),
                      InvalidArgument, out,
                      "select_copy.int_out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  const int64_t size = self.size(d);
  const int64_t at = index < 0 ? index + size : index;
  TL_KERNEL_CHECK_MSG(ctx, at >= 0 && at < size, InvalidArgument, out,
                      "select_copy.int_out: index %lld out of range for size %lld",
                      static_cast<long long>(index), static_cast<long long>(size));
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && is_default_dim_order(self) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);

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
