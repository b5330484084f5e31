// TL_SWITCH_*: run a lambda with `T` bound to the C++ type of a runtime dtype.
//
//   TL_SWITCH_FLOAT_TYPES(self.dtype(), ctx, "relu.out", T, [&] {
//     const T* in = self.const_data<T>();
//     ...
//   });
//
// `op_name` must be a string literal spelled as in the kernel manifest: a case is
// compiled only when its dtype is in TL_SELECTED_DTYPE_MASK(op_name) (dtype_selection.h),
// so dtypes the resolver did not choose this kernel for generate no code. Code in a
// header, shared by kernels of several libraries, uses the TL_SWITCH_*_IN(mask, ...)
// forms with the mask its caller passed as a template argument. At run time an unselected dtype fails the call with
// InvalidArgument and logs "<op>: dtype <Name> is not selected in this build"; a dtype
// outside the macro's set logs "... is not supported".
//
// Sets: INT = Byte Char Short Int Long; INTB = INT + Bool; REAL = INT + Float Double; REALB = REAL + Bool;
// REALHBF16 = REAL + Half BFloat16; ALL = REAL + Bool Half BFloat16;
// FLOAT = Float Double Half BFloat16.
// Bool binds T = ::tailor::Bool (runtime/core/bool_element.h), never C++ bool.
#pragma once

#include <stdint.h>

#include "runtime/core/half.h"
#include "runtime/core/scalar_type.h"
#include "runtime/kernel/dtype_selection.h"
#include "runtime/kernel/kernel_context.h"
#include "runtime/kernel/kernel_utils.h"
#include "runtime/platform/log.h"

#if TL_LOG_ENABLED
#define TL_INTERNAL_OP_NAME(op_name) (op_name)
#else
#define TL_INTERNAL_OP_NAME(op_name) (static_cast<const char*>(nullptr))
#endif

#define TL_INTERNAL_DTYPE_CASE(ctx, op_name, NAME, CTYPE, T, ...)                        \
  case ::tailor::ScalarType::NAME:                                                       \
    if constexpr ((tl_switch_mask_ >>                                                    \
                   static_cast<uint32_t>(::tailor::ScalarType::NAME)) & 1u) {            \
      using T = CTYPE;                                                                   \
      (__VA_ARGS__)();                                                                   \
    } else {                                                                             \
      ::tailor::internal::report_dtype_unselected(ctx, TL_INTERNAL_OP_NAME(op_name),     \
                                                  ::tailor::ScalarType::NAME);           \
    }                                                                                    \
    break;

#define TL_INTERNAL_SWITCH_BEGIN(mask, dtype)                                            \
  do {                                                                                   \
    constexpr uint32_t tl_switch_mask_ = (mask);                                         \
    const ::tailor::ScalarType tl_switch_dtype_ = (dtype);                               \
    switch (tl_switch_dtype_) {

#define TL_INTERNAL_SWITCH_END(ctx, op_name)                                             \
  default:                                                                               \
    ::tailor::internal::report_dtype_unsupported(ctx, TL_INTERNAL_OP_NAME(op_name),      \
                                                 tl_switch_dtype_);                      \
    break;                                                                               \
    }                                                                                    \
  }                                                                                      \
  while (0)

#define TL_INTERNAL_CASES_INT(ctx, op_name, T, ...)                                      \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, Byte, uint8_t, T, __VA_ARGS__)                    \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, Char, int8_t, T, __VA_ARGS__)                     \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, Short, int16_t, T, __VA_ARGS__)                   \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, Int, int32_t, T, __VA_ARGS__)                     \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, Long, int64_t, T, __VA_ARGS__)

#define TL_INTERNAL_CASES_FLOAT_DOUBLE(ctx, op_name, T, ...)                             \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, Float, float, T, __VA_ARGS__)                     \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, Double, double, T, __VA_ARGS__)

#define TL_INTERNAL_CASES_HALF_BF16(ctx, op_name, T, ...)                                \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, Half, ::tailor::Half, T, __VA_ARGS__)             \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, BFloat16, ::tailor::BFloat16, T, __VA_ARGS__)

#define TL_INTERNAL_CASES_BOOL(ctx, op_name, T, ...)                                     \
  TL_INTERNAL_DTYPE_CASE(ctx, op_name, Bool, ::tailor::Bool, T, __VA_ARGS__)

#define TL_SWITCH_INT_TYPES(dtype, ctx, op_name, T, ...)                                 \
  TL_SWITCH_INT_TYPES_IN(TL_SELECTED_DTYPE_MASK(op_name), dtype, ctx, op_name, T, __VA_ARGS__)
#define TL_SWITCH_INT_TYPES_IN(mask, dtype, ctx, op_name, T, ...)                        \
  TL_INTERNAL_SWITCH_BEGIN(mask, dtype)                                                  \
  TL_INTERNAL_CASES_INT(ctx, op_name, T, __VA_ARGS__)                                    \
  TL_INTERNAL_SWITCH_END(ctx, op_name)

#define TL_SWITCH_INTB_TYPES(dtype, ctx, op_name, T, ...)                                \
  TL_SWITCH_INTB_TYPES_IN(TL_SELECTED_DTYPE_MASK(op_name), dtype, ctx, op_name, T, __VA_ARGS__)
#define TL_SWITCH_INTB_TYPES_IN(mask, dtype, ctx, op_name, T, ...)                       \
  TL_INTERNAL_SWITCH_BEGIN(mask, dtype)                                                  \
  TL_INTERNAL_CASES_INT(ctx, op_name, T, __VA_ARGS__)                                    \
  TL_INTERNAL_CASES_BOOL(ctx, op_name, T, __VA_ARGS__)                                   \
  TL_INTERNAL_SWITCH_END(ctx, op_name)

#define TL_SWITCH_FLOAT_TYPES(dtype, ctx, op_name, T, ...)                               \
  TL_SWITCH_FLOAT_TYPES_IN(TL_SELECTED_DTYPE_MASK(op_name), dtype, ctx, op_name, T, __VA_ARGS__)
#define TL_SWITCH_FLOAT_TYPES_IN(mask, dtype, ctx, op_name, T, ...)                      \
  TL_INTERNAL_SWITCH_BEGIN(mask, dtype)                                                  \
  TL_INTERNAL_CASES_FLOAT_DOUBLE(ctx, op_name, T, __VA_ARGS__)                           \
  TL_INTERNAL_CASES_HALF_BF16(ctx, op_name, T, __VA_ARGS__)                              \
  TL_INTERNAL_SWITCH_END(ctx, op_name)

#define TL_SWITCH_REAL_TYPES(dtype, ctx, op_name, T, ...)                                \
  TL_SWITCH_REAL_TYPES_IN(TL_SELECTED_DTYPE_MASK(op_name), dtype, ctx, op_name, T, __VA_ARGS__)
#define TL_SWITCH_REAL_TYPES_IN(mask, dtype, ctx, op_name, T, ...)                       \
  TL_INTERNAL_SWITCH_BEGIN(mask, dtype)                                                  \
  TL_INTERNAL_CASES_INT(ctx, op_name, T, __VA_ARGS__)                                    \
  TL_INTERNAL_CASES_FLOAT_DOUBLE(ctx, op_name, T, __VA_ARGS__)                           \
  TL_INTERNAL_SWITCH_END(ctx, op_name)

#define TL_SWITCH_REALB_TYPES(dtype, ctx, op_name, T, ...)                               \
  TL_SWITCH_REALB_TYPES_IN(TL_SELECTED_DTYPE_MASK(op_name), dtype, ctx, op_name, T, __VA_ARGS__)
#define TL_SWITCH_REALB_TYPES_IN(mask, dtype, ctx, op_name, T, ...)                      \
  TL_INTERNAL_SWITCH_BEGIN(mask, dtype)                                                  \
  TL_INTERNAL_CASES_INT(ctx, op_name, T, __VA_ARGS__)                                    \
  TL_INTERNAL_CASES_FLOAT_DOUBLE(ctx, op_name, T, __VA_ARGS__)                           \
  TL_INTERNAL_CASES_BOOL(ctx, op_name, T, __VA_ARGS__)                                   \
  TL_INTERNAL_SWITCH_END(ctx, op_name)

#define TL_SWITCH_REALHBF16_TYPES(dtype, ctx, op_name, T, ...)                           \
  TL_SWITCH_REALHBF16_TYPES_IN(TL_SELECTED_DTYPE_MASK(op_name), dtype, ctx, op_name, T, __VA_ARGS__)
#define TL_SWITCH_REALHBF16_TYPES_IN(mask, dtype, ctx, op_name, T, ...)                  \
  TL_INTERNAL_SWITCH_BEGIN(mask, dtype)                                                  \
  TL_INTERNAL_CASES_INT(ctx, op_name, T, __VA_ARGS__)                                    \
  TL_INTERNAL_CASES_FLOAT_DOUBLE(ctx, op_name, T, __VA_ARGS__)                           \
  TL_INTERNAL_CASES_HALF_BF16(ctx, op_name, T, __VA_ARGS__)                              \
  TL_INTERNAL_SWITCH_END(ctx, op_name)

#define TL_SWITCH_ALL_TYPES(dtype, ctx, op_name, T, ...)                                 \
  TL_SWITCH_ALL_TYPES_IN(TL_SELECTED_DTYPE_MASK(op_name), dtype, ctx, op_name, T, __VA_ARGS__)
#define TL_SWITCH_ALL_TYPES_IN(mask, dtype, ctx, op_name, T, ...)                        \
  TL_INTERNAL_SWITCH_BEGIN(mask, dtype)                                                  \
  TL_INTERNAL_CASES_INT(ctx, op_name, T, __VA_ARGS__)                                    \
  TL_INTERNAL_CASES_FLOAT_DOUBLE(ctx, op_name, T, __VA_ARGS__)                           \
  TL_INTERNAL_CASES_BOOL(ctx, op_name, T, __VA_ARGS__)                                   \
  TL_INTERNAL_CASES_HALF_BF16(ctx, op_name, T, __VA_ARGS__)                              \
  TL_INTERNAL_SWITCH_END(ctx, op_name)
