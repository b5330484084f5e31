#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out) -> Tensor(a!)
// Swaps two dims (negative dims count from the end; a 0-d tensor accepts 0 and -1).
Tensor& transpose_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim0,
                               int64_t dim1, Tensor& out) {
  // Validate
  const int64_t rank = self.dim();
  int64_t d0 = 0;
  int64_t d1 = 0;
  TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dim0, rank, &d0) && normalize_dim(dim1, rank, &d1),
                      InvalidArgument, out,
                      "transpose_copy.int_out: dims %lld, %lld out of range for %lld-d input",
                      static_cast<long long>(dim0), static_cast<long long>(dim1),
                      static_cast<long long>(rank));
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && is_default_dim_order(self) &&
                      is_default_dim_order(out),
                  InvalidArgument, out);

  // Resize: the view of self with dims d0 and d1 swapped.
  StridedView view = contiguous_view(self);
  if (rank > 0) {
    const int64_t size0 = view.sizes[d0];
    const int64_t stride0 = view.strides[d0];
    view.sizes[d0] = view.sizes[d1];
    view.strides[d0] = view.strides[d1];
    view.sizes[d1] = size0;
    view.strides[d1] = stride0;
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(view.sizes, rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "transpose_copy.int_out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
