#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)
// One entry of `size` may be -1: it takes whatever numel leaves for it.
Tensor& view_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, size.size() <= kMaxDims, InvalidArgument, out,
                      "view_copy.out: too many dimensions");
  int64_t sizes[kMaxDims];
  int64_t known = 1;
  int64_t infer_at = -1;
  for (size_t d = 0; d < size.size(); ++d) {
    sizes[d] = size[d];
    if (size[d] == -1) {
      TL_KERNEL_CHECK_MSG(ctx, infer_at < 0, InvalidArgument, out,
                          "view_copy.out: only one dimension can be -1");
      infer_at = static_cast<int64_t>(d);
    } else {
      TL_KERNEL_CHECK_MSG(ctx, size[d] >= 0, InvalidArgument, out,
                          "view_copy.out: negative size");
      TL_KERNEL_CHECK_MSG(ctx, !__builtin_mul_overflow(known, size[d], &known), InvalidArgument,
                          out, "view_copy.out: the sizes' product overflows");
    }
  }
  const int64_t numel = static_cast<int64_t>(self.numel());
  if (infer_at >= 0) {
    TL_KERNEL_CHECK_MSG(ctx, known != 0 && numel % known == 0, InvalidArgument, out,
                        "view_copy.out: size does not divide the number of elements");
    sizes[infer_at] = numel / known;
    known *= sizes[infer_at];
  }
  TL_KERNEL_CHECK_MSG(ctx, known == numel, InvalidArgument, out,
                      "view_copy.out: size does not match the number of elements");
  TL_KERNEL_CHECK(ctx, same_dtype(self, out) && is_default_dim_order(self), InvalidArgument,
                  out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "view_copy.out", self.dtype(), out);

  // Resize and copy
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, size.size())) == Error::Ok,
                  InvalidArgument, out);
  if (self.nbytes() > 0 && out.data() != self.data()) {
    __builtin_memcpy(out.data(), self.data(), self.nbytes());
  }
  return out;
}

}  // namespace tailor::native
