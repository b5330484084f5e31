#include "kernels/portable/util/elementwise_op.h"

namespace tailor::native {

// round.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// self rounded to the nearest integral value, halves to even (2.5 -> 2), in self's dtype;
// integers are unchanged. torch has no Bool round.
Tensor& round_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  return rounding_op<TL_SELECTED_DTYPE_MASK("round.out")>(ctx, "round.out", self, out,
      [](auto x) { return math::nearbyint(x); });
}

// round.decimals_out(Tensor self, *, int decimals, Tensor(a!) out) -> Tensor(a!)
// self rounded to `decimals` decimal places (negative: to tens, hundreds, ...), halves to
// even, computed as torch does: x * 10^d rounded, then / 10^d (for d < 0, x / 10^-d
// rounded, then * 10^-d), so x * 10^d past the dtype's range gives inf. Floating dtypes
// only, as in torch.
Tensor& round_decimals_out(KernelContext& ctx, const Tensor& self, int64_t decimals,
                           Tensor& out) {
  const bool negative = decimals < 0;
  const double scale = math::pow(10.0, static_cast<double>(negative ? -decimals : decimals));
  return unary_op<DtypeSet::Float, TL_SELECTED_DTYPE_MASK("round.decimals_out")>(
      ctx, "round.decimals_out", self, self.dtype(), out, [scale, negative](auto x) {
        const auto s = static_cast<decltype(x)>(scale);
        return negative ? math::nearbyint(x / s) * s : math::nearbyint(x * s) / s;
      });
}

}  // namespace tailor::native
