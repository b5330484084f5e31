#include "runtime/kernel/kernel_utils.h"

namespace tailor {

Error resize_tensor(Tensor& t, ArrayRef<int64_t> sizes) { return t.set_sizes(sizes); }

Error resize_like(Tensor& out, const Tensor& like) { return out.set_sizes(like.sizes()); }

namespace internal {

void report_dtype_unselected(KernelContext& ctx, const char* op, ScalarType dtype) {
  TL_LOG(Error, "%s: dtype %s is not selected in this build", op != nullptr ? op : "kernel",
         scalar_type_name(dtype));
  ctx.fail(Error::InvalidArgument);
}

void report_dtype_unsupported(KernelContext& ctx, const char* op, ScalarType dtype) {
  TL_LOG(Error, "%s: dtype %s is not supported", op != nullptr ? op : "kernel",
         scalar_type_name(dtype));
  ctx.fail(Error::InvalidArgument);
}

}  // namespace internal
}  // namespace tailor
