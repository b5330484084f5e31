#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native::any_detail {

// The overloads share one body; each names its own op for dtype selection.
struct AnyAllOut {
  static constexpr const char* name = "any.all_out";
};
struct AnyOut {
  static constexpr const char* name = "any.out";
};
struct AnyDimsOut {
  static constexpr const char* name = "any.dims_out";
};

// Whether any element over `dims` (every dim when `all`) is nonzero (NaN counts, -0.0 does
// not); an empty reduction gives false. Any input dtype; out is Bool, or Byte (torch gives a
// Byte result for Byte input), written as 0 or 1.
template <typename Op>
Tensor& any_into(KernelContext& ctx, const Tensor& self, const int64_t* dims, size_t n_dims,
                 bool all, bool keepdim, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, out.dtype() == ScalarType::Bool || out.dtype() == ScalarType::Byte,
                      InvalidArgument, out, "%s: out must be Bool or Byte, got %s", Op::name,
                      scalar_type_name(out.dtype()));
  ReducePlan plan;
  if (!plan_reduction(ctx, self, dims, n_dims, all, keepdim, Op::name, out, &plan)) {
    return out;
  }

  // Compute: Bool and Byte are both one byte holding 0 or 1.
  TL_SWITCH_ALL_TYPES(self.dtype(), ctx, Op::name, T, [&] {
    using M = acc_t<T>;
    const T* src = self.const_data<T>();
    uint8_t* dst = static_cast<uint8_t*>(out.data());
    for (int64_t o = 0; o < plan.out_numel(); ++o) {
      bool found = false;
      plan.visit(plan.base_offset(o), [&](int64_t offset, int64_t) {
        found = found || static_cast<M>(src[offset]) != M(0);
      });
      dst[o] = found ? 1 : 0;
    }
  });
  return out;
}

}  // namespace tailor::native::any_detail

namespace tailor::native {

// any.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// Whether any element of self is nonzero, as a 0-d tensor (x.any()).
Tensor& any_all_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return any_detail::any_into<any_detail::AnyAllOut>(ctx, self, nullptr, 0, true, false, out);
}

// any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
// Over one dim (x.any(dim=1)); x.all(dim) exports as not(any(dim, not(x))).
Tensor& any_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                Tensor& out) {
  return any_detail::any_into<any_detail::AnyOut>(ctx, self, &dim, 1, false, keepdim, out);
}

// any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
//     -> Tensor(a!)
// Over several dims; None reduces every dim, while [] reduces none (as in torch).
Tensor& any_dims_out(KernelContext& ctx, const Tensor& self, Optional<IntArrayRef> dim,
                     bool keepdim, Tensor& out) {
  const IntArrayRef dims = dim.value_or(IntArrayRef());
  return any_detail::any_into<any_detail::AnyDimsOut>(ctx, self, dims.data(), dims.size(),
                                                      !dim.has_value(), keepdim, out);
}

}  // namespace tailor::native
