// Shared validation of mm.out and bmm.out (portable, and optimized's Float kernels).
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Validates an mm.out call (self [n, m] by mat2 [m, p], one dtype, contiguous) and
// resizes out to [n, p]; false after ctx.fail() otherwise.
inline bool check_mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2,
                         Tensor& out) {
  TL_KERNEL_CHECK_MSG(ctx, self.dim() == 2 && mat2.dim() == 2 && self.size(1) == mat2.size(0),
                      InvalidArgument, false, "mm.out: self and mat2 cannot be multiplied");
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && same_dtype(mat2, out) &&
                      is_default_dim_order(self) && is_default_dim_order(mat2) &&
                      is_default_dim_order(out),
                  InvalidArgument, false);
  const int64_t out_sizes[2] = {self.size(0), mat2.size(1)};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(out_sizes, 2)) == Error::Ok,
                  InvalidArgument, false);
  return true;
}

// Validates a bmm.out call (self [b, n, m] by mat2 [b, m, p], one dtype, contiguous) and
// resizes out to [b, n, p]; false after ctx.fail() otherwise.
inline bool check_bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2,
                          Tensor& out) {
  TL_KERNEL_CHECK_MSG(ctx,
                      self.dim() == 3 && mat2.dim() == 3 && self.size(0) == mat2.size(0) &&
                          self.size(2) == mat2.size(1),
                      InvalidArgument, false,
                      "bmm.out: expected self [b, n, m] and mat2 [b, m, p]");
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && same_dtype(mat2, out) &&
                      is_default_dim_order(self) && is_default_dim_order(mat2) &&
                      is_default_dim_order(out),
                  InvalidArgument, false);
  const int64_t out_sizes[3] = {self.size(0), self.size(1), mat2.size(2)};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(out_sizes, 3)) == Error::Ok,
                  InvalidArgument, false);
  return true;
}

}  // namespace tailor::native
