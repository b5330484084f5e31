#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// unfold_copy.out(Tensor self, int dimension, int size, int step, *, Tensor(a!) out)
//     -> Tensor(a!)
// Every window of `size` entries of dim `dimension`, `step` apart: that dim becomes the
// window count and a new last dim of `size` holds each window.
Tensor& unfold_copy_out(KernelContext& ctx, const Tensor& self, int64_t dimension,
                        int64_t size, int64_t step, Tensor& out) {
  // Validate
  const int64_t rank = self.dim();
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dimension, rank, &d) && rank < int64_t(kMaxDims),
                      InvalidArgument, out,
                      "unfold_copy.out: dimension %lld out of range for a %lld-d input",
                      static_cast<long long>(dimension), static_cast<long long>(rank));
  // A 0-d input unfolds as a [1].
  const int64_t length = rank > 0 ? self.size(d) : 1;
  TL_KERNEL_CHECK_MSG(ctx, size >= 0 && size <= length && step > 0, InvalidArgument, out,
                      "unfold_copy.out: windows of %lld every %lld do not fit dim %lld of "
                      "size %lld", static_cast<long long>(size), static_cast<long long>(step),
                      static_cast<long long>(d), static_cast<long long>(length));
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // The view: dim d steps from window to window, the new last dim within one.
  StridedView view = contiguous_view(self);
  const int64_t stride = rank > 0 ? view.strides[d] : 1;
  if (rank > 0) {
    view.sizes[d] = (length - size) / step + 1;
    view.strides[d] = stride * step;
  }
  view.sizes[view.rank] = size;
  view.strides[view.rank++] = stride;

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(view.sizes, view.rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "unfold_copy.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
