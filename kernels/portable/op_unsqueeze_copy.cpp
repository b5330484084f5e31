#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)
// Inserts a dim of size 1 at `dim`, which may be -(rank+1) .. rank.
Tensor& unsqueeze_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  // Validate
  const int64_t rank = self.dim();
  int64_t at = 0;
  TL_KERNEL_CHECK_MSG(ctx, rank + 1 <= int64_t(kMaxDims) && normalize_dim(dim, rank + 1, &at),
                      InvalidArgument, out,
                      "unsqueeze_copy.out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(rank));
  TL_KERNEL_CHECK(ctx, same_dtype(self, out) && is_default_dim_order(self), InvalidArgument,
                  out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "unsqueeze_copy.out", self.dtype(), out);

  // Resize and copy: the bytes do not move.
  int64_t sizes[kMaxDims];
  for (int64_t d = 0, s = 0; d <= rank; ++d) {
    sizes[d] = d == at ? 1 : self.size(s++);
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, rank + 1)) == Error::Ok,
                  InvalidArgument, out);
  if (self.nbytes() > 0 && out.data() != self.data()) {
    __builtin_memcpy(out.data(), self.data(), self.nbytes());
  }
  return out;
}

}  // namespace tailor::native
