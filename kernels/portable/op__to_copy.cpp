#include "kernels/portable/util/elementwise.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// _to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
//              Tensor(a!) out) -> Tensor(a!)
// self converted to out's dtype like static_cast (floats truncate toward zero into
// integers; nonzero becomes true), as torch converts.
Tensor& _to_copy_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                     Optional<int64_t> memory_format, Tensor& out) {
  (void)non_blocking;   // one thread, nothing runs asynchronously
  (void)memory_format;  // out's own dim order, checked below, decides the layout
  // Validate
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self) && is_default_dim_order(out),
                  InvalidArgument, out);

  // Compute: load straight as the out type; 16-bit floats go through float.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("_to_copy.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "_to_copy.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "_to_copy.out", in, out, [](M x) { return x; });
  });
  return out;
}

}  // namespace tailor::native
