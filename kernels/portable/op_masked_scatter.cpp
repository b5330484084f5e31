#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/masked.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out)
//     -> Tensor(a!)
// self (broadcast with the Bool mask) where the mask is false; where it is true, the
// next element of source (read flat, row-major), which must hold enough of them.
Tensor& masked_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                           const Tensor& source, Tensor& out) {
  // Validate
  MaskedWalk walk;
  if (!check_masked(ctx, "masked_scatter.out", self, mask, out, &walk)) {
    return out;
  }
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, source) && is_default_dim_order(source),
                      InvalidArgument, out,
                      "masked_scatter.out: source must be contiguous %s, got %s",
                      scalar_type_name(self.dtype()), scalar_type_name(source.dtype()));
  const Bool* take = mask.const_data<Bool>();
  int64_t count = 0;
  walk.for_each([&](int64_t, int64_t m) { count += element_value(take[m]) ? 1 : 0; });
  TL_KERNEL_CHECK_MSG(ctx, count <= static_cast<int64_t>(source.numel()), InvalidArgument, out,
                      "masked_scatter.out: the mask selects %lld elements, source has %lld",
                      static_cast<long long>(count), static_cast<long long>(source.numel()));

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, IntArrayRef(walk.sizes, walk.rank)) == Error::Ok,
                  InvalidArgument, out);

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "masked_scatter.out", W, [&] {
    const W* src = static_cast<const W*>(self.data());
    const W* next = static_cast<const W*>(source.data());
    W* dst = static_cast<W*>(out.data());
    walk.for_each([&](int64_t s, int64_t m) { *dst++ = element_value(take[m]) ? *next++ : src[s]; });
  });
  return out;
}

}  // namespace tailor::native
