#include "kernels/portable/util/binary.h"
#include "kernels/portable/util/minmax.h"
#include "kernels/portable/util/unary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {
namespace clamp_detail {

// at::result_type over self and the present bounds: tensors with dims promote together,
// 0-d ones only count when of a higher kind (clamp.Tensor promotes all three).
inline ScalarType tensors_result_type(const Tensor* const* tensors, size_t n) {
  bool any_dimmed = false;
  bool any_zero_dim = false;
  ScalarType dimmed = ScalarType::Bool;
  ScalarType zero_dim = ScalarType::Bool;
  for (size_t i = 0; i < n; ++i) {
    const ScalarType t = tensors[i]->dtype();
    if (tensors[i]->dim() == 0) {
      zero_dim = any_zero_dim ? promote_types(zero_dim, t) : t;
      any_zero_dim = true;
    } else {
      dimmed = any_dimmed ? promote_types(dimmed, t) : t;
      any_dimmed = true;
    }
  }
  if (!any_dimmed) return zero_dim;
  if (!any_zero_dim) return dimmed;
  return combine_categories(dimmed, zero_dim);
}

}  // namespace clamp_detail

// clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)
// out = min(max(self, min), max): min > max gives max, and NaN in self or a bound gives
// NaN, as in torch. Integer and Bool tensors promote with the bounds (an integer tensor
// clamped at 0.5 gives Float); Bool with Bool bounds is unsupported, as in torch.
Tensor& clamp_out(KernelContext& ctx, const Tensor& self, Optional<Scalar> min,
                  Optional<Scalar> max, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, min.has_value() || max.has_value(), InvalidArgument, out,
                      "clamp.out: at least one of min and max must be given");
  // The bounds are both wrapped numbers: they promote together, then with self.
  const ScalarType bounds =
      min.has_value() && max.has_value()
          ? promote_types(scalar_dtype(min.value()), scalar_dtype(max.value()))
          : scalar_dtype(min.has_value() ? min.value() : max.value());
  const ScalarType result = combine_categories(self.dtype(), bounds);
  TL_KERNEL_CHECK(ctx, check_unary_out("clamp.out", self, result, out), InvalidArgument, out);

  // Compute in out's dtype (16-bit floats in float); a missing bound is the type's limit.
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("clamp.out");
  const Tensor* in[1] = {&self};
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "clamp.out", T, [&] {
    using M = acc_t<T>;
    const M lo = min.has_value() ? scalar_bound<M>(min.value()) : lowest_value<M>();
    const M hi = max.has_value() ? scalar_bound<M>(max.value()) : highest_value<M>();
    apply_elementwise<M, T, kMask>(ctx, "clamp.out", in, out, [lo, hi](M x) {
      return min_propagate_nan(max_propagate_nan(x, lo), hi);
    });
  });
  return out;
}

// clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
//     -> Tensor(a!)
// As clamp.out with elementwise bounds; self, min and max broadcast and promote together.
Tensor& clamp_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor* min,
                         const Tensor* max, Tensor& out) {
  // Validate
  TL_KERNEL_CHECK_MSG(ctx, min != nullptr || max != nullptr, InvalidArgument, out,
                      "clamp.Tensor_out: at least one of min and max must be given");
  const Tensor* all[3] = {&self, min != nullptr ? min : max, max};
  const size_t n = min != nullptr && max != nullptr ? 3 : 2;
  TL_KERNEL_CHECK_MSG(ctx, resize_to_broadcast(out, all, n), InvalidArgument, out,
                      "clamp.Tensor_out: shapes do not broadcast to the out tensor");
  bool contiguous = is_default_dim_order(out);
  for (size_t i = 0; i < n; ++i) {
    contiguous = contiguous && is_default_dim_order(*all[i]);
  }
  TL_KERNEL_CHECK_MSG(ctx, contiguous, InvalidArgument, out,
                      "clamp.Tensor_out: tensors must be contiguous");
  TL_KERNEL_CHECK(ctx,
                  check_castable("clamp.Tensor_out", clamp_detail::tensors_result_type(all, n),
                                 out),
                  InvalidArgument, out);

  // Compute in out's dtype (16-bit floats in float).
  constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("clamp.Tensor_out");
  TL_SWITCH_ALL_TYPES(out.dtype(), ctx, "clamp.Tensor_out", T, [&] {
    using M = acc_t<T>;
    if (n == 3) {
      const Tensor* in[3] = {&self, min, max};
      apply_elementwise<M, T, kMask>(ctx, "clamp.Tensor_out", in, out, [](M x, M lo, M hi) {
        return min_propagate_nan(max_propagate_nan(x, lo), hi);
      });
    } else if (min != nullptr) {
      const Tensor* in[2] = {&self, min};
      apply_elementwise<M, T, kMask>(ctx, "clamp.Tensor_out", in, out,
                                     [](M x, M lo) { return max_propagate_nan(x, lo); });
    } else {
      const Tensor* in[2] = {&self, max};
      apply_elementwise<M, T, kMask>(ctx, "clamp.Tensor_out", in, out,
                                     [](M x, M hi) { return min_propagate_nan(x, hi); });
    }
  });
  return out;
}

}  // namespace tailor::native
