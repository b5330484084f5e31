#include "kernels/portable/util/where.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = condition ? self : other, all three broadcast; self and other promoted.
Tensor& where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                       const Tensor& other, Tensor& out) {
  // Validate
  if (!check_where_out(ctx, condition, self, other, out)) return out;

  // Compute
  where_elementwise<TL_SELECTED_DTYPE_MASK("where.self_out")>(ctx, condition, self, other,
                                                              out);
  return out;
}

}  // namespace tailor::native
