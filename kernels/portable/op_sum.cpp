#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/reduce.h"
#include "kernels/portable/util/wrap.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//                 Tensor(a!) out) -> Tensor(a!)
// Sums over `dim` (None or [] sums everything). The result dtype is `dtype` if given,
// else Long for integer and Bool inputs and self's dtype otherwise.
Tensor& sum_intlist_out(KernelContext& ctx, const Tensor& self, Optional<IntArrayRef> dim,
                        bool keepdim, Optional<ScalarType> dtype, Tensor& out) {
  // Validate
  const ScalarType want = dtype.has_value()
                              ? dtype.value()
                              : (is_integral_type(self.dtype(), true) ? ScalarType::Long
                                                                      : self.dtype());
  TL_KERNEL_CHECK_MSG(ctx, out.dtype() == want, InvalidArgument, out,
                      "sum.IntList_out: out has dtype %s, expected %s",
                      scalar_type_name(out.dtype()), scalar_type_name(want));
  const IntArrayRef dims = dim.value_or(IntArrayRef());
  ReducePlan plan;
  if (!plan_reduction(ctx, self, dims.data(), dims.size(), dims.empty(), keepdim,
                      "sum.IntList_out", out, &plan)) {
    return out;
  }

  // Compute: accumulate in the output's accumulation type (integers wrap, util/wrap.h).
  TL_SWITCH_ALL_TYPES(self.dtype(), ctx, "sum.IntList_out", IN, [&] {
    TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "sum.IntList_out", OUT, [&] {
      using Acc = wrap_acc_t<OUT>;
      const IN* src = self.const_data<IN>();
      OUT* dst = out.mutable_data<OUT>();
      for (int64_t o = 0; o < plan.out_numel(); ++o) {
        Acc acc = 0;
        plan.visit(plan.base_offset(o), [&](int64_t offset, int64_t) {
          acc += static_cast<Acc>(cast_element<OUT>(element_value(src[offset])));
        });
        dst[o] = static_cast<OUT>(acc);
      }
    });
  });
  return out;
}

}  // namespace tailor::native
