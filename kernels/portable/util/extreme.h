// Max and min reductions (amax, amin, max, min, max.dim, min.dim): the largest or
// smallest element per output element, and where it is. NaN beats every number and the
// first occurrence wins ties, as in torch (so max.dim's indices are torch's).
#pragma once

#include "kernels/portable/util/reduce.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// True when `v` replaces `best` in a max (kMax) or min reduction.
template <bool kMax, typename V>
inline bool beats(V v, V best) {
  if (is_nan_value(best)) {
    return false;
  }
  return is_nan_value(v) || (kMax ? v > best : v < best);
}

// Writes the extreme of each output element of `plan` to `out` (self's dtype) and, when
// `indices` is given, its position along the reduced dims (Long). `plan` must reduce at
// least one element per output element. kMask: the caller's TL_SELECTED_DTYPE_MASK.
template <bool kMax, uint32_t kMask>
void reduce_extreme(KernelContext& ctx, const char* op, const ReducePlan& plan,
                    const Tensor& self, Tensor& out, Tensor* indices) {
  TL_SWITCH_ALL_TYPES_IN(kMask, self.dtype(), ctx, op, T, [&] {
    const T* src = self.const_data<T>();
    T* dst = out.mutable_data<T>();
    int64_t* at = indices != nullptr ? indices->mutable_data<int64_t>() : nullptr;
    for (int64_t o = 0; o < plan.out_numel(); ++o) {
      const int64_t base = plan.base_offset(o);
      auto best = element_value(src[base]);  // T, or bool for a Bool element
      int64_t best_at = 0;
      plan.visit(base, [&](int64_t offset, int64_t position) {
        const auto v = element_value(src[offset]);
        if (beats<kMax>(v, best)) {
          best = v;
          best_at = position;
        }
      });
      dst[o] = static_cast<T>(best);
      if (at != nullptr) {
        at[o] = best_at;
      }
    }
  });
}

// amax.out / amin.out: the extreme over `dim` ([] means every dim).
template <bool kMax, uint32_t kMask>
Tensor& extreme_over_dims(KernelContext& ctx, const char* op, const Tensor& self,
                          IntArrayRef dim, bool keepdim, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx,
                      same_dtype(self, out) && is_default_dim_order(self) &&
                          is_default_dim_order(out),
                      InvalidArgument, out, "%s: out must be contiguous with self's dtype %s",
                      op, scalar_type_name(self.dtype()));
  ReducePlan plan;
  TL_KERNEL_CHECK_MSG(ctx, plan.init(self, dim.data(), dim.size(), dim.empty(), keepdim),
                      InvalidArgument, out, "%s: dim out of range or repeated", op);
  TL_KERNEL_CHECK_MSG(ctx, plan.reduce_numel() > 0 || plan.out_numel() == 0, InvalidArgument,
                      out, "%s: cannot reduce an empty dim", op);

  // Resize
  TL_KERNEL_CHECK(ctx, resize_tensor(out, plan.out_sizes()) == Error::Ok, InvalidArgument,
                  out);

  // Compute
  reduce_extreme<kMax, kMask>(ctx, op, plan, self, out, nullptr);
  return out;
}

// max.unary_out / min.unary_out: the extreme of every element, into a 0-d out.
template <bool kMax, uint32_t kMask>
Tensor& extreme_of_all(KernelContext& ctx, const char* op, const Tensor& self, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, self.numel() > 0, InvalidArgument, out,
                      "%s: the input is empty (torch needs a dim to reduce an empty tensor)",
                      op);
  return extreme_over_dims<kMax, kMask>(ctx, op, self, IntArrayRef(), false, out);
}

// max.dim_max / min.dim_min: the extreme along `dim` and its index (Long).
template <bool kMax, uint32_t kMask>
void extreme_along_dim(KernelContext& ctx, const char* op, const Tensor& self, int64_t dim,
                       bool keepdim, Tensor& values, Tensor& indices) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, same_dtype(self, values) && indices.dtype() == ScalarType::Long,
                      InvalidArgument, ,
                      "%s: values must have self's dtype %s and indices Long (got %s, %s)", op,
                      scalar_type_name(self.dtype()), scalar_type_name(values.dtype()),
                      scalar_type_name(indices.dtype()));
  TL_KERNEL_CHECK(ctx,
                  is_default_dim_order(self) && is_default_dim_order(values) &&
                      is_default_dim_order(indices),
                  InvalidArgument, );
  ReducePlan plan;
  TL_KERNEL_CHECK_MSG(ctx, plan.init(self, &dim, 1, false, keepdim), InvalidArgument, ,
                      "%s: dim %lld out of range for a %lld-d input", op,
                      static_cast<long long>(dim), static_cast<long long>(self.dim()));
  TL_KERNEL_CHECK_MSG(ctx, plan.reduce_numel() > 0 || plan.out_numel() == 0, InvalidArgument, ,
                      "%s: cannot reduce an empty dim", op);

  // Resize
  TL_KERNEL_CHECK(ctx,
                  resize_tensor(values, plan.out_sizes()) == Error::Ok &&
                      resize_tensor(indices, plan.out_sizes()) == Error::Ok,
                  InvalidArgument, );

  // Compute
  reduce_extreme<kMax, kMask>(ctx, op, plan, self, values, &indices);
}

}  // namespace tailor::native
