#include "kernels/portable/util/data_dependent.h"
#include "kernels/portable/util/index.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// The coordinates (Long, [count, self.dim()]) of self's nonzero elements in row-major
// order. The count is known only here: util/data_dependent.h says how out is sized.
Tensor& nonzero_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, out.dtype() == ScalarType::Long && out.dim() == 2, InvalidArgument,
                      out, "nonzero.out: out must be a 2-d Long tensor, got %lld-d %s",
                      static_cast<long long>(out.dim()), scalar_type_name(out.dtype()));
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && self.dim() <= static_cast<int64_t>(kMaxDims),
                  InvalidArgument, out);

  TL_SWITCH_ALL_TYPES(self.dtype(), ctx, "nonzero.out", T, [&] {
    const T* src = self.const_data<T>();
    const int64_t numel = static_cast<int64_t>(self.numel());
    // Count, then size out (the bound check), then write the coordinates.
    int64_t count = 0;
    for (int64_t i = 0; i < numel; ++i) {
      count += element_value(src[i]) != 0 ? 1 : 0;
    }
    const int64_t sizes[2] = {count, self.dim()};
    if (!resize_data_dependent(ctx, "nonzero.out", out, IntArrayRef(sizes, 2))) {
      return;
    }
    int64_t* dst = out.mutable_data<int64_t>();
    int64_t coord[kMaxDims] = {};
    for (int64_t i = 0; i < numel; ++i) {
      if (element_value(src[i]) != 0) {
        for (int64_t d = 0; d < self.dim(); ++d) {
          *dst++ = coord[d];
        }
      }
      for (int64_t d = self.dim() - 1; d >= 0; --d) {  // the next coordinate, row-major
        if (++coord[d] < self.size(d)) {
          break;
        }
        coord[d] = 0;
      }
    }
  });
  return out;
}

}  // namespace tailor::native
