#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::squeeze_copy_detail {

// Resizes `out` to `self` without the dims marked in `drop` and copies the bytes.
inline Tensor& squeeze_into(KernelContext& ctx, const Tensor& self, const bool* drop,
                            Tensor& out) {
  int64_t sizes[kMaxDims];
  int64_t rank = 0;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!drop[d]) {
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

}  // namespace tailor::native::squeeze_copy_detail

namespace tailor::native {

// squeeze_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Drops every dim of size 1.
Tensor& squeeze_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK(ctx, same_dtype(self, out) && is_default_dim_order(self), InvalidArgument,
                  out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "squeeze_copy.out", self.dtype(), out);

  // Resize and copy
  bool drop[kMaxDims] = {};
  for (int64_t d = 0; d < self.dim(); ++d) {
    drop[d] = self.size(d) == 1;
  }
  return squeeze_copy_detail::squeeze_into(ctx, self, drop, out);
}

// squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)
// Drops `dim` if its size is 1; otherwise copies unchanged. A 0-d input accepts 0 or -1.
Tensor& squeeze_copy_dim_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                             Tensor& out) {
  // Validate
  int64_t d = 0;
  TL_KERNEL_CHECK_MSG(ctx, normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "squeeze_copy.dim_out: dim %lld out of range for a %lld-d input",
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK(ctx, same_dtype(self, out) && is_default_dim_order(self), InvalidArgument,
                  out);
  TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, "squeeze_copy.dim_out", self.dtype(), out);

  // Resize and copy
  bool drop[kMaxDims] = {};
  drop[d] = self.dim() > 0 && self.size(d) == 1;
  return squeeze_copy_detail::squeeze_into(ctx, self, drop, out);
}

// squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out) -> Tensor(a!)
// Drops each listed dim whose size is 1; the others stay. Repeated dims are an error.
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

  // Resize and copy
  bool drop[kMaxDims] = {};
  for (int64_t d = 0; d < self.dim(); ++d) {
    drop[d] = listed[d] && self.size(d) == 1;
  }
  return squeeze_copy_detail::squeeze_into(ctx, self, drop, out);
}

}  // namespace tailor::native
