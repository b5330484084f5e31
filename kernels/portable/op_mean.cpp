#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::mean_detail {

// The overloads share one body; each names its own op for dtype selection.
struct MeanOut {
  static constexpr const char* name = "mean.out";
};
struct MeanDtypeOut {
  static constexpr const char* name = "mean.dtype_out";
};

// Averages over `dims` (every dim when empty); an empty reduction gives NaN. The result
// dtype is `dtype` if given, else self's, and must be a floating type.
template <typename Op>
Tensor& mean_into(KernelContext& ctx, const Tensor& self, IntArrayRef dims, bool keepdim,
                  Optional<ScalarType> dtype, Tensor& out) {
  // Validate
  const ScalarType want = dtype.value_or(self.dtype());
  TL_KERNEL_CHECK_MSG(ctx, out.dtype() == want && is_floating_type(want), InvalidArgument, out,
                      "%s: out has dtype %s, expected %s (a floating type)", Op::name,
                      scalar_type_name(out.dtype()), scalar_type_name(want));
  ReducePlan plan;
  if (!plan_reduction(ctx, self, dims.data(), dims.size(), dims.empty(), keepdim,
                      Op::name, out, &plan)) {
    return out;
  }

  // Compute: sum in the output's accumulation type, then divide.
  TL_SWITCH_REALHBF16_TYPES(self.dtype(), ctx, Op::name, IN, [&] {
    TL_SWITCH_FLOAT_TYPES(out.dtype(), ctx, Op::name, OUT, [&] {
      using Acc = acc_t<OUT>;
      const IN* src = self.const_data<IN>();
      OUT* dst = out.mutable_data<OUT>();
      const Acc count = static_cast<Acc>(plan.reduce_numel());
      for (int64_t o = 0; o < plan.out_numel(); ++o) {
        Acc acc = 0;
        plan.visit(plan.base_offset(o), [&](int64_t offset, int64_t) {
          acc += static_cast<Acc>(static_cast<OUT>(src[offset]));
        });
        dst[o] = static_cast<OUT>(plan.reduce_numel() > 0 ? acc / count : math::quiet_nan<Acc>());
      }
    });
  });
  return out;
}

}  // namespace tailor::native::mean_detail

namespace tailor::native {

// mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//          Tensor(a!) out) -> Tensor(a!)
// Averages over `dim` (None or [] averages everything).
Tensor& mean_out(KernelContext& ctx, const Tensor& self, Optional<IntArrayRef> dim,
                 bool keepdim, Optional<ScalarType> dtype, Tensor& out) {
  return mean_detail::mean_into<mean_detail::MeanOut>(ctx, self, dim.value_or(IntArrayRef()),
                                                      keepdim, dtype, out);
}

// mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
// Averages everything into a 0-d tensor (torch.mean(x)).
Tensor& mean_dtype_out(KernelContext& ctx, const Tensor& self, Optional<ScalarType> dtype,
                       Tensor& out) {
  return mean_detail::mean_into<mean_detail::MeanDtypeOut>(ctx, self, IntArrayRef(), false,
                                                           dtype, out);
}

}  // namespace tailor::native
