// Helpers every kernel uses: checks that report through the KernelContext, resizing,
// and dtype/dim-order comparisons.
#pragma once

#include <stdint.h>

#include "runtime/core/array_ref.h"
#include "runtime/core/error.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"
#include "runtime/platform/log.h"

/// When `cond` is false: logs it, marks the call failed with Error::`error` and returns
/// `retval` from the kernel.
#define TL_KERNEL_CHECK(ctx, cond, error, retval)                 \
  do {                                                            \
    if (!(cond)) {                                                \
      TL_LOG(Error, "kernel check failed: %s", #cond);            \
      (ctx).fail(::tailor::Error::error);                         \
      return retval;                                              \
    }                                                             \
  } while (0)

/// Like TL_KERNEL_CHECK with a printf-style message.
#define TL_KERNEL_CHECK_MSG(ctx, cond, error, retval, fmt, ...) \
  do {                                                          \
    if (!(cond)) {                                              \
      TL_LOG(Error, fmt, ##__VA_ARGS__);                        \
      (ctx).fail(::tailor::Error::error);                       \
      return retval;                                            \
    }                                                           \
  } while (0)

namespace tailor {

/// Sets `t`'s sizes (see Tensor::set_sizes): InvalidArgument when the rank differs, a
/// static tensor would change shape, or the new shape exceeds the planned capacity.
Error resize_tensor(Tensor& t, ArrayRef<int64_t> sizes);

/// Resizes `out` to the sizes of `like`; same errors as resize_tensor().
Error resize_like(Tensor& out, const Tensor& like);

inline bool same_dtype(const Tensor& a, const Tensor& b) { return a.dtype() == b.dtype(); }

inline bool same_dtype_and_dim_order(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.dim_order().equals(b.dim_order());
}

/// True for the row-major dim order 0, 1, ..., dim-1.
inline bool is_default_dim_order(const Tensor& t) { return t.is_contiguous(); }

/// The check of most copying kernels: `out` has `in`'s dtype and both are row-major.
inline bool same_dtype_contiguous(const Tensor& in, const Tensor& out) {
  return same_dtype(in, out) && is_default_dim_order(in) && is_default_dim_order(out);
}

inline bool same_shape(const Tensor& a, const Tensor& b) { return a.sizes().equals(b.sizes()); }

namespace internal {

/// Used by the TL_SWITCH_* macros: log and fail the call, out of line so each switch
/// stays small. `op` may be nullptr (TL_LOG_ENABLED=0 drops the names).
void report_dtype_unselected(KernelContext& ctx, const char* op, ScalarType dtype);
void report_dtype_unsupported(KernelContext& ctx, const char* op, ScalarType dtype);

}  // namespace internal

}  // namespace tailor
