#include <cmath>

#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//          Tensor(a!) out) -> Tensor(a!)
// Averages over `dim` (None or [] averages everything); an empty reduction gives NaN.
// The result dtype is `dtype` if given, else self's, and must be a floating type.
Tensor& mean_out(KernelContext& ctx, const Tensor& self, Optional<IntArrayRef> dim,
                 bool keepdim, Optional<ScalarType> dtype, Tensor& out) {
  // Validate
  const ScalarType want = dtype.value_or(self.dtype());
  TL_KERNEL_CHECK_MSG(ctx, out.dtype() == want && is_floating_type(want), InvalidArgument, out,
                      "mean.out: out has dtype %s, expected %s (a floating type)",
                      scalar_type_name(out.dtype()), scalar_type_name(want));
  TL_KERNEL_CHECK(ctx, is_default_dim_order(self) && is_default_dim_order(out),
                  InvalidArgument, out);
  const IntArrayRef dims = dim.value_or(IntArrayRef());
  ReducePlan plan;
  TL_KERNEL_CHECK_MSG(ctx, plan.init(self, dims.data(), dims.size(), dims.empty(), keepdim),
                      InvalidArgument, out, "mean.out: dim out of range or repeated");

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, plan.out_sizes()) == Error::Ok, InvalidArgument,
                  out);

  // Compute: sum in the output's accumulation type, then divide.
  TL_SWITCH_REALHBF16_TYPES(self.dtype(), ctx, "mean.out", IN, [&] {
    TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, "mean.out", OUT, [&] {
      using Acc = acc_t<OUT>;
      const IN* src = self.const_data<IN>();
      OUT* dst = out.mutable_data<OUT>();
      const Acc count = static_cast<Acc>(plan.reduce_numel());
      for (int64_t o = 0; o < plan.out_numel(); ++o) {
        Acc acc = 0;
        plan.visit(plan.base_offset(o), [&](int64_t offset, int64_t) {
          acc += static_cast<Acc>(static_cast<OUT>(src[offset]));
        });
        dst[o] = static_cast<OUT>(plan.reduce_numel() > 0 ? acc / count : Acc(NAN));
      }
    });
  });
  return out;
}

}  // namespace tailor::native
