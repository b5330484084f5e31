#include <math.h>
#include <string.h>

#include "kernels/portable/util/binary.h"
#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {
namespace div_detail {

enum class Mode { True, Trunc, Floor };

// rounding_mode None, "trunc" or "floor"; false for anything else.
inline bool parse_mode(const Optional<const char*>& mode, Mode* out) {
  if (!mode.has_value()) {
    *out = Mode::True;
  } else if (strcmp(*mode, "trunc") == 0) {
    *out = Mode::Trunc;
  } else if (strcmp(*mode, "floor") == 0) {
    *out = Mode::Floor;
  } else {
    return false;
  }
  return true;
}

// Floor division of floating values, rounded like torch: through fmod, so that the
// quotient is exact where a / b would round across an integer.
template <typename M>
M floor_divide(M a, M b) {
  if (b == 0) return a / b;
  const M mod = fmod(a, b);
  M div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return copysign(M(0), a / b);
  M floored = floor(div);
  if (div - floored > M(0.5)) floored += 1;
  return floored;
}

// One dtype of div: true division needs a floating out; trunc and floor run in
// integers too, where a zero divisor fails the call (torch raises ZeroDivisionError).
template <typename T, uint32_t kMask, size_t N>
void divide(KernelContext& ctx, const char* op, const Tensor* const (&in)[N], const M_unused*,
            Tensor& out);

}  // namespace div_detail
}  // namespace tailor::native
