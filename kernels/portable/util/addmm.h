// Shared validation of addmm.out (portable, and optimized's Float kernel).
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// Where addmm reads self's element for out[i, j]: self[i * row_stride + j * col_stride],
// a stride 0 along a dimension self broadcasts (0-d, [p], [1, p], [n, 1] or [n, p]).
struct AddmmSelfStrides {
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// Validates an addmm.out call (mat1 [n, m] by mat2 [m, p], self broadcasting to [n, p],
// one dtype, contiguous), resizes out to [n, p] and writes self's strides; false after
// ctx.fail() otherwise.
inline bool check_addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1,
                            const Tensor& mat2, Tensor& out, AddmmSelfStrides* strides) {
  TL_KERNEL_CHECK_MSG(ctx, mat1.dim() == 2 && mat2.dim() == 2 && mat1.size(1) == mat2.size(0),
                      InvalidArgument, false, "addmm.out: mat1 and mat2 cannot be multiplied");
  const int64_t n = mat1.size(0);
  const int64_t p = mat2.size(1);
  const int64_t self_rows = self.dim() == 2 ? self.size(0) : 1;
  const int64_t self_cols = self.dim() >= 1 ? self.size(self.dim() - 1) : 1;
  TL_KERNEL_CHECK_MSG(ctx,
                      self.dim() <= 2 && (self_rows == 1 || self_rows == n) &&
                          (self_cols == 1 || self_cols == p),
                      InvalidArgument, false, "addmm.out: self does not broadcast to [n, p]");
  TL_KERNEL_CHECK(ctx,
                  same_dtype(self, out) && same_dtype(mat1, out) && same_dtype(mat2, out) &&
                      is_default_dim_order(self) && is_default_dim_order(mat1) &&
                      is_default_dim_order(mat2) && is_default_dim_order(out),
                  InvalidArgument, false);

  // Resize
  const int64_t out_sizes[2] = {n, p};
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(out_sizes, 2)) == Error::Ok,
                  InvalidArgument, false);
  strides->row_stride = (self_rows == n && n > 1) ? self_cols : 0;
  strides->col_stride = (self_cols == p && p > 1) ? 1 : 0;
  return true;
}

}  // namespace tailor::native
