#include "runtime/kernel/kernel_includes.h"

// Integer arithmetic on symbolic sizes (Python's operator module on SymInts).
namespace tailor::prim::native {

int64_t add_int(KernelContext& ctx, int64_t a, int64_t b) {
  return a + b;
}

int64_t sub_int(KernelContext& ctx, int64_t a, int64_t b) {
  return a - b;
}

int64_t mul_int(KernelContext& ctx, int64_t a, int64_t b) {
  return a * b;
}

// Python semantics: rounds toward negative infinity, unlike C++ division.
int64_t floordiv_int(KernelContext& ctx, int64_t a, int64_t b) {
  TL_KERNEL_CHECK_MSG(ctx, b != 0, InvalidArgument, 0, "floordiv.int: division by zero");
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Python semantics: the result takes the sign of the divisor.
int64_t mod_int(KernelContext& ctx, int64_t a, int64_t b) {
  TL_KERNEL_CHECK_MSG(ctx, b != 0, InvalidArgument, 0, "mod.int: division by zero");
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

}  // namespace tailor::prim::native
