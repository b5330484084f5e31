// What the quantized embedding kernels (embedding.out, embedding_byte.out) share: the
// indices' check, the output's shape and the bounds check of each looked-up row.
#pragma once

#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::quantized::native {

// Shared with the portable kernels (kernels/portable/util/index.h).
using ::tailor::native::index_value;
using ::tailor::native::is_index_dtype;
using ::tailor::native::kMaxDims;

// Checks that indices are Int or Long with fewer than kMaxDims dims and resizes `out` to
// their shape plus `dim`; false (ctx failed) otherwise.
inline bool resize_for_lookup(KernelContext& ctx, const char* op, const Tensor& indices,
                              int64_t dim, Tensor& out) {
  TL_KERNEL_CHECK_MSG(ctx, is_index_dtype(indices.dtype()) && indices.dim() < int64_t(kMaxDims),
                      InvalidArgument, false,
                      "%s: indices must be Int or Long with fewer than %d dims", op,
                      static_cast<int>(kMaxDims));
  int64_t sizes[kMaxDims];
  for (int64_t d = 0; d < indices.dim(); ++d) sizes[d] = indices.size(d);
  sizes[indices.dim()] = dim;
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(sizes, indices.dim() + 1)) == Error::Ok,
                  InvalidArgument, false);
  return true;
}

// lookup(i, row) for each index i (its value `row`) of a table of `rows` rows; false
// (ctx failed) at the first index out of range.
template <typename Lookup>
bool for_each_lookup(KernelContext& ctx, const char* op, const Tensor& indices, int64_t rows,
                     Lookup lookup) {
  for (size_t i = 0; i < indices.numel(); ++i) {
    const int64_t row = index_value(indices, i);
    TL_KERNEL_CHECK_MSG(ctx, row >= 0 && row < rows, InvalidArgument, false,
                        "%s: index %lld out of range for %lld rows", op,
                        static_cast<long long>(row), static_cast<long long>(rows));
    lookup(i, row);
  }
  return true;
}

}  // namespace tailor::quantized::native
