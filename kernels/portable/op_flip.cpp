#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// flip.out(Tensor self, int[] dims, *, Tensor(a!) out) -> Tensor(a!)
// self with the order of its elements reversed along each of `dims` (negative counts from
// the end; a dim may not repeat). Elements are copied, the same code for every dtype of a size.
Tensor& flip_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);
  const int64_t rank = self.dim();
  bool flipped[kMaxDims] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = 0;
    TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dims[i], rank, &d) && (rank == 0 || !flipped[d]),
                        InvalidArgument, out, "flip.out: dim %lld out of range or repeated",
                        static_cast<long long>(dims[i]));
    flipped[d] = rank > 0;  // a 0-d tensor has nothing to reverse
  }

  // Resize
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);

  // Copy: a flipped dim reads from its last index backwards (a negative stride).
  StridedView view = contiguous_view(self);
  for (int64_t d = 0; d < rank; ++d) {
    if (flipped[d] && view.sizes[d] > 1) {
      view.offset += (view.sizes[d] - 1) * view.strides[d];
      view.strides[d] = -view.strides[d];
    }
  }
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "flip.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
