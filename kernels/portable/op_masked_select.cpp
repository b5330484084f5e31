#include "kernels/portable/util/data_dependent.h"
#include "kernels/portable/util/element_word.h"
#include "kernels/portable/util/masked.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out) -> Tensor(a!)
// The elements of self where the Bool mask is true (both broadcast), as a 1-d tensor in
// row-major order. The count is known only here: util/data_dependent.h says how out is
// sized.
Tensor& masked_select_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                          Tensor& out) {
  // Validate
  MaskedWalk walk;
  if (!check_masked(ctx, "masked_select.out", self, mask, out, &walk)) {
    return out;
  }
  TL_KERNEL_CHECK_MSG(ctx, out.dim() == 1, InvalidArgument, out,
                      "masked_select.out: out must be 1-d, got %lld-d",
                      static_cast<long long>(out.dim()));

  // Resize to the count of true mask elements over the broadcast shape.
  const Bool* keep = mask.const_data<Bool>();
  int64_t count = 0;
  walk.for_each([&](int64_t, int64_t m) { count += element_value(keep[m]) ? 1 : 0; });
  const int64_t size = count;
  if (!resize_data_dependent(ctx, "masked_select.out", out, IntArrayRef(&size, 1))) {
    return out;
  }

  // Copy
  TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "masked_select.out", W, [&] {
    const W* src = static_cast<const W*>(self.data());
    W* dst = static_cast<W*>(out.data());
    walk.for_each([&](int64_t s, int64_t m) {
      if (element_value(keep[m])) {
        *dst++ = src[s];
      }
    });
  });
  return out;
}

}  // namespace tailor::native
