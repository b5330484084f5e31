#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/reduce.h"
#include "kernels/portable/util/wrap.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::prod_detail {

// The overloads share one body; each names its own op for dtype selection.
struct ProdOut {
  static constexpr const char* name = "prod.out";
};
struct ProdIntOut {
  static constexpr const char* name = "prod.int_out";
};

// Multiplies over `dims` (every dim when `all`); an empty product is 1. The result dtype
// is `dtype` if given, else Long for integer and Bool inputs and self's dtype otherwise;
// integers wrap as in torch.
template <typename Op>
Tensor& prod_into(KernelContext& ctx, const Tensor& self, const int64_t* dims, size_t n_dims,
                  bool all, bool keepdim, Optional<ScalarType> dtype, Tensor& out) {
  // Validate
  const ScalarType want = dtype.has_value()
                              ? dtype.value()
                              : (is_integral_type(self.dtype(), true) ? ScalarType::Long
                                                                      : self.dtype());
  TL_KERNEL_CHECK_MSG(ctx, out.dtype() == want, InvalidArgument, out,
                      "%s: out has dtype %s, expected %s", Op::name,
                      scalar_type_name(out.dtype()), scalar_type_name(want));
  ReducePlan plan;
  if (!plan_reduction(ctx, self, dims, n_dims, all, keepdim, Op::name, out, &plan)) {
    return out;
  }

  // Compute: multiply in the output's accumulation type.
  TL_SWITCH_ALL_TYPES(self.dtype(), ctx, Op::name, IN, [&] {
    TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, Op::name, OUT, [&] {
      using Acc = wrap_acc_t<OUT>;
      const IN* src = self.const_data<IN>();
      OUT* dst = out.mutable_data<OUT>();
      for (int64_t o = 0; o < plan.out_numel(); ++o) {
        Acc acc = 1;
        plan.visit(plan.base_offset(o), [&](int64_t offset, int64_t) {
          acc = mul_value(acc, static_cast<Acc>(cast_element<OUT>(element_value(src[offset]))));
        });
        dst[o] = static_cast<OUT>(acc);
      }
    });
  });
  return out;
}

}  // namespace tailor::native::prod_detail

namespace tailor::native {

// prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
// The product of every element, 0-d.
Tensor& prod_out(KernelContext& ctx, const Tensor& self, Optional<ScalarType> dtype,
                 Tensor& out) {
  return prod_detail::prod_into<prod_detail::ProdOut>(ctx, self, nullptr, 0, true, false,
                                                      dtype, out);
}

// prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None,
//              Tensor(a!) out) -> Tensor(a!)
// The product along `dim`.
Tensor& prod_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                     Optional<ScalarType> dtype, Tensor& out) {
  return prod_detail::prod_into<prod_detail::ProdIntOut>(ctx, self, &dim, 1, false, keepdim,
                                                         dtype, out);
}

}  // namespace tailor::native
