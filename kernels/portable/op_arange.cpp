#include "kernels/portable/util/acc_type.h"
#include "kernels/portable/util/fill.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)
// out[i] = start + i * step for i < ceil((end - start) / step); out is 1-d and resized.
Tensor& arange_start_out(KernelContext& ctx, const Scalar& start, const Scalar& end,
                         const Scalar& step, Tensor& out) {
  // Integer dtypes count in int64, as torch does: a bound or step it cannot hold is
  // torch's overflow error, not a saturated range.
  if (is_integral_type(out.dtype(), false) &&
      !(check_scalar_fits(ctx, "arange.start_out", "start", start, ScalarType::Long) &&
        check_scalar_fits(ctx, "arange.start_out", "end", end, ScalarType::Long) &&
        check_scalar_fits(ctx, "arange.start_out", "step", step, ScalarType::Long))) {
    return out;
  }
  // Validate: the length is computed in double, as torch does; for a Long out from the
  // bounds truncated to integers first (arange(-0.9, 2.1, 2.0) is [0] as Long, but
  // [0, 2] as Int: torch counts other dtypes from the bounds as given). Truncated in
  // double, so a bound beyond int64 fails the length check below instead of a cast.
  const bool integral = out.dtype() == ScalarType::Long;
  const auto bound = [integral](const Scalar& v) {
    return integral ? math::trunc(v.to<double>()) : v.to<double>();
  };
  const double s = bound(start);
  const double e = bound(end);
  const double d = bound(step);
  TL_KERNEL_CHECK_MSG(ctx, d != 0 && ((d > 0 && e >= s) || (d < 0 && e <= s)),
                      InvalidArgument, out,
                      "arange.start_out: step must be nonzero and point from start to end");
  const double length = math::ceil((e - s) / d);
  // Infinite or huge (inf - 0, 1e300 / 1e-300): no tensor holds it, and the conversion
  // below would be undefined.
  TL_KERNEL_CHECK_MSG(ctx, length <= 2147483647.0, InvalidArgument, out,
                      "arange.start_out: %g elements is too many", length);
  const int64_t sizes[1] = {static_cast<int64_t>(length)};
  TL_KERNEL_CHECK_MSG(ctx,
                      out.dim() == 1 && resize_tensor(out, IntArrayRef(sizes, 1)) == Error::Ok,
                      InvalidArgument, out, "arange.start_out: out cannot hold %lld elements",
                      static_cast<long long>(sizes[0]));

  // Compute: integers in int64, floats in double (torch's accumulate types).
  TL_SWITCH_REALHBF16_TYPES(out.dtype(), ctx, "arange.start_out", T, [&] {
    T* dst = out.mutable_data<T>();
    if constexpr (is_integral_v<T>) {
      // Wraps like torch's int64 arithmetic: computed unsigned, where overflow is defined.
      const auto as_int64 = [](const Scalar& v) {  // 2^63 is INT64_MIN, as in torch
        return v.is_floating_point() ? cast_element<int64_t>(v.to<double>()) : v.to<int64_t>();
      };
      const uint64_t first = static_cast<uint64_t>(as_int64(start));
      const uint64_t by = static_cast<uint64_t>(as_int64(step));
      for (int64_t i = 0; i < sizes[0]; ++i) {
        dst[i] = static_cast<T>(static_cast<int64_t>(first + static_cast<uint64_t>(i) * by));
      }
    } else {
      for (int64_t i = 0; i < sizes[0]; ++i) {
        dst[i] = static_cast<T>(s + static_cast<double>(i) * d);
      }
    }
  });
  return out;
}

}  // namespace tailor::native
