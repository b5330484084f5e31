#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "kernels/portable/util/strided_copy.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out)
//     -> Tensor(a!)
// `length` entries of dim `dim` from `start` (negative counts from the end), as torch's
// narrow, copied.
Tensor& narrow_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, int64_t start,
                        int64_t length, Tensor& out) {
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && normalize_dim(dim, self.dim(), &d),
                      InvalidArgument, out,
                      "narrow_copy.out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  const int64_t size = self.size(d);
  const int64_t first = start < 0 && start >= -size ? start + size : start;
  TL_KERNEL_CHECK_MSG(ctx, first >= 0 && length >= 0 && first <= size - length,
                      InvalidArgument, out,
                      "narrow_copy.out: start %lld and length %lld exceed dim %lld of size %lld",
                      static_cast<long long>(start), static_cast<long long>(length),
                      static_cast<long long>(d), static_cast<long long>(size));
  TL_KERNEL_CHECK(ctx, same_dtype_contiguous(self, out), InvalidArgument, out);

  // Resize
  const StridedView view = slice_view(self, d, first, length, 1);
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(view.sizes, view.rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "narrow_copy.out", W, [&] {
    strided_copy(static_cast<const W*>(self.data()), static_cast<W*>(out.data()), view);
  });
  return out;
}

}  // namespace tailor::native
