#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, Tensor(a!) out)
//     -> Tensor(a!)
// The diagonal of the (dim1, dim2) planes, `offset` above the main one (below when
// negative), as a new last dim; the other dims keep their order.
Tensor& diagonal_copy_out(KernelContext& ctx, const Tensor& self, int64_t offset, int64_t dim1,
                          int64_t dim2, Tensor& out) {
  // Validate
  const int64_t rank = self.dim();
  int64_t d1 = 0;
  int64_t d2 = 0;
  TL_KERNEL_CHECK_MSG(ctx,
                      rank >= 2 && normalize_dim(dim1, rank, &d1) &&
                          normalize_dim(dim2, rank, &d2) && d1 != d2,
                      InvalidArgument, out,
                      "diagonal_copy.out: dims %lld and %lld must be two distinct dims of the "
                      "%lld-d input", static_cast<long long>(dim1),
                      static_cast<long long>(dim2), static_cast<long long>(rank));
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // The view: every other dim as it is, then the diagonal (one step along both dims).
  const StridedView in = contiguous_view(self);
  StridedView view;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != d1 && d != d2) {
      view.sizes[view.rank] = in.sizes[d];
      view.strides[view.rank++] = in.strides[d];
    }
  }
  // Rows start at max(0, -offset), columns at max(0, offset).
  const int64_t row0 = offset < 0 ? -offset : 0;
  const int64_t col0 = offset > 0 ? offset : 0;
  const int64_t rows = in.sizes[d1] - row0;
  const int64_t cols = in.sizes[d2] - col0;
  int64_t length = rows < cols ? rows : cols;
  length = length > 0 ? length : 0;
  view.offset = length > 0 ? row0 * in.strides[d1] + col0 * in.strides[d2] : 0;
  view.sizes[view.rank] = length;
  view.strides[view.rank++] = in.strides[d1] + in.strides[d2];

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(view.sizes, view.rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "diagonal_copy.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
