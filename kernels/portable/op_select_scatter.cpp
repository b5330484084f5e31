#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = self with self[..., index, ...] (index in dim `dim`, negative from the end)
// replaced by src, which has that selection's shape (self's without dim `dim`): one copy
// of self, then src written over the selected slice.
Tensor& select_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& src,
                           int64_t dim, int64_t index, Tensor& out) {
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && normalize_dim(dim, self.dim(), &d),
                      InvalidArgument, out,
                      "select_scatter.out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  const int64_t size = self.size(d);
  const int64_t at = index < 0 ? index + size : index;
  TL_KERNEL_CHECK_MSG(ctx, at >= 0 && at < size, InvalidArgument, out,
                      "select_scatter.out: index %lld out of range for size %lld",
                      static_cast<long long>(index), static_cast<long long>(size));
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, out) && same_dtype(self, src), InvalidArgument, out,
                      "select_scatter.out: src and out must have self's dtype %s",
                      scalar_type_name(self.dtype()));
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(src) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);
  const StridedView view = select_view(self, d, at);
  bool fits = src.dim() == view.rank;
  for (int64_t i = 0; fits && i < view.rank; ++i) {
    fits = src.size(i) == view.sizes[i];
  }
  TL_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, out,
                      "select_scatter.out: src must have self's shape without dim %lld",
                      static_cast<long long>(d));

  // Resize
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);

  // Copy self, then src over the selection.
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "select_scatter.out", W, [&] {
    if (out.data() != self.data() && self.nbytes() > 0) {
      __builtin_memcpy(out.data(), self.data(), self.nbytes());
    }
    strided_write(static_cast<const W*>(src.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
