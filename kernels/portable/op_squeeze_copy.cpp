#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out) -> Tensor(a!)
// Drops each listed dim whose size is 1; the others stay. Repeated dims are an error.
// (torch.export turns squeeze(), squeeze(dim) and their _copy forms into this overload.)
Tensor& squeeze_copy_dims_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim,
                              Tensor& out) {
  // Validate
  bool listed[kMaxDims] = {};
  for (size_t i = 0; i < dim.size(); ++i) {
    int64_t d = 0;
    TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dim[i], self.dim(), &d) && !listed[d],
                        InvalidArgument, out,
                        "squeeze_copy.dims_out: dim %lld out of range or repeated",
                        static_cast<long long>(dim[i]));
    listed[d] = true;
  }
  TL_KERNEL_CHECK(ctx, same_dtype(self, out) && is_default_dim_order(self), InvalidArgument,
                  out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "squeeze_copy.dims_out", self.dtype(), out);

  // Resize and copy: the bytes do not move.
  int64_t sizes[kMaxDims];
  int64_t rank = 0;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!(listed[d] && self.size(d) == 1)) {
      sizes[rank++] = self.size(d);
    }
  }
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, rank)) == Error::Ok,
                  InvalidArgument, out);
  if (self.nbytes() > 0 && out.data() != self.data()) {
    __builtin_memcpy(out.data(), self.data(), self.nbytes());
  }
  return out;
}

}  // namespace tailor::native
