#include "runtime/kernel/kernel_includes.h"

// Integer arithmetic on symbolic sizes (Python's operator module on SymInts). These
// compute sizes from program values, so a result int64 cannot hold is an error, not a
// wrapped size.
namespace tailor::prim::native {

int64_t add_int(KernelContext& ctx, int64_t a, int64_t b) {
  int64_t r = 0;
  TL_KERNEL_CHECK_MSG(ctx, !__builtin_add_overflow(a, b, &r), InvalidArgument, 0,
                      "add.int: %lld + %lld overflows", static_cast<long long>(a),
                      static_cast<long long>(b));
  return r;
}

int64_t sub_int(KernelContext& ctx, int64_t a, int64_t b) {
  int64_t r = 0;
  TL_KERNEL_CHECK_MSG(ctx, !__builtin_sub_overflow(a, b, &r), InvalidArgument, 0,
                      "sub.int: %lld - %lld overflows", static_cast<long long>(a),
                      static_cast<long long>(b));
  return r;
}

int64_t mul_int(KernelContext& ctx, int64_t a, int64_t b) {
  int64_t r = 0;
  TL_KERNEL_CHECK_MSG(ctx, !__builtin_mul_overflow(a, b, &r), InvalidArgument, 0,
                      "mul.int: %lld * %lld overflows", static_cast<long long>(a),
                      static_cast<long long>(b));
  return r;
}

// Python semantics: rounds toward negative infinity, unlike C++ division.
int64_t floordiv_int(KernelContext& ctx, int64_t a, int64_t b) {
  TL_KERNEL_CHECK_MSG(ctx, b != 0, InvalidArgument, 0, "floordiv.int: division by zero");
  TL_KERNEL_CHECK_MSG(ctx, a != INT64_MIN || b != -1, InvalidArgument, 0,
                      "floordiv.int: the quotient overflows");
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Python semantics: the result takes the sign of the divisor.
int64_t mod_int(KernelContext& ctx, int64_t a, int64_t b) {
  TL_KERNEL_CHECK_MSG(ctx, b != 0, InvalidArgument, 0, "mod.int: division by zero");
  if (b == -1) return 0;  // INT64_MIN % -1 overflows in C++; every a is a multiple of -1
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

}  // namespace tailor::prim::native
