#include "runtime/kernel/kernel_includes.h"

namespace tailor::prim::native {

// sym_size.int(Tensor self, int dim) -> SymInt: the current (dynamic) size of a dim.
int64_t sym_size_int(KernelContext& ctx, const Tensor& self, int64_t dim) {
  const int64_t rank = self.dim();
  const int64_t wrapped = dim < 0 ? dim + rank : dim;
  TL_KERNEL_CHECK_MSG(ctx, wrapped >= 0 && wrapped < rank, InvalidArgument, 0,
                      "sym_size.int: dim out of range");
  return self.size(wrapped);
}

}  // namespace tailor::prim::native
