#include "kernels/portable/util/elementwise.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out)
//     -> Tensor(a!)
// The functional copy_: out takes self's shape, and src broadcast to it, converted to
// out's dtype as torch converts (x.fill_(tensor) exports as this, with a 0-d src).
Tensor& copy_out(KernelContext& ctx, const Tensor& self, const Tensor& src, bool non_blocking,
                 Tensor& out) {
  (void)non_blocking;  // one device, nothing runs asynchronously
  // Validate
  const Tensor* both[2] = {&self, &src};
  int64_t sizes[kMaxDims];
  int64_t rank = 0;
  bool fits = broadcast_sizes(both, 2, sizes, &rank) && rank == self.dim();
  for (int64_t d = 0; fits && d < rank; ++d) fits = sizes[d] == self.size(d);
  TL_KERNEL_CHECK_MSG(ctx, fits,
                      InvalidArgument, out,
                      "copy.out: src (%lld dims) does not broadcast to self's shape (%lld dims)",
                      static_cast<long long>(src.dim()), static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK(ctx, resize_like(out, self) == Error::Ok, InvalidArgument, out);
  TL_KERNEL_CHECK(ctx, is_default_dim_order(src) && is_default_dim_order(out), InvalidArgument,
                  out);

  // Compute: src loaded straight as the out type; 16-bit floats go through float.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("copy.out");
  const Tensor* in[1] = {&src};
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "copy.out", T, [&] {
    using M = acc_t<T>;
    apply_elementwise<M, T, kMask>(ctx, "copy.out", in, out, [](M x) { return x; });
  });
  return out;
}

}  // namespace tailor::native
