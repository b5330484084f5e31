#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
//     -> Tensor(a!)
// out = condition ? self : other, all three broadcast; self and other promoted.
Tensor& where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                       const Tensor& other, Tensor& out) {
  // Validate
  const Tensor* in[3] = {&condition, &self, &other};
  TL_KERNEL_CHECK_MSG(ctx, resize_to_broadcast(out, in, 3), InvalidArgument, out,
                      "where.self_out: shapes do not broadcast to the out tensor");
  TL_KERNEL_CHECK_MSG(ctx,
                      (condition.dtype() == ScalarType::Bool ||
                       condition.dtype() == ScalarType::Byte) &&
                          can_cast(result_type(self, other), out.dtype()),
                      InvalidArgument, out,
                      "where.self_out: condition must be Bool, and out must hold the result");
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(condition) && is_default_dim_order(self) &&
                      is_default_dim_order(other) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Compute: the condition loads as the compute type too (nonzero is true).
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("where.self_out");
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "where.self_out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "where.self_out", in, out,
                                   [](M c, M x, M y) { return c != M(0) ? x : y; });
  });
  return out;
}

}  // namespace tailor::native
