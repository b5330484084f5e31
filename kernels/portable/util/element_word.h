// Dtype switch for kernels that only move elements (copies, layout changes, gathers):
// the code depends on the element size alone, so each size is compiled once and shared
// by every dtype of that size.
//
//   TL_SWITCH_ELEMENT_WORD(self.dtype(), ctx, "t_copy.out", W, [&] {
//     const W* src = static_cast<const W*>(self.data());
//     ...
//   });
//
// TL_KERNEL_CHECK_DTYPE_SELECTED is the same check alone, for kernels that copy whole
// buffers with memcpy.
//
// As with TL_SWITCH_* (runtime/kernel/dtype_switch.h), `op_name` is spelled as in the
// kernel manifest, a dtype that is not selected for it fails the call with
// InvalidArgument naming the op and dtype, and an element size no selected dtype has
// generates no code.
#pragma once

#include <stdint.h>

#include "runtime/kernel/kernel_includes.h"

namespace tailor::native {

// The dtypes of each element size, as masks over ScalarType codes.
inline constexpr uint32_t kOneByteDtypes = (1u << int(ScalarType::Byte)) |
                                           (1u << int(ScalarType::Char)) |
                                           (1u << int(ScalarType::Bool));
inline constexpr uint32_t kTwoByteDtypes = (1u << int(ScalarType::Short)) |
                                           (1u << int(ScalarType::Half)) |
                                           (1u << int(ScalarType::BFloat16));
inline constexpr uint32_t kFourByteDtypes = (1u << int(ScalarType::Int)) |
                                            (1u << int(ScalarType::Float));
inline constexpr uint32_t kEightByteDtypes = (1u << int(ScalarType::Long)) |
                                             (1u << int(ScalarType::Double));

// True when `dtype` is one of the dtypes in `mask`.
constexpr bool dtype_in_mask(uint32_t mask, ScalarType dtype) {
  const uint32_t code = static_cast<uint32_t>(static_cast<uint8_t>(dtype));
  return code < 32 && (mask & (1u << code)) != 0;
}

// Calls fn(W{}) with W the unsigned integer of `dtype`'s size, compiling only the sizes
// `Mask` has dtypes of. Returns false (calling nothing) when `dtype` is not in `Mask`.
template <uint32_t Mask, typename Fn>
bool dispatch_element_word(ScalarType dtype, Fn&& fn) {
  if (!dtype_in_mask(Mask, dtype)) {
    return false;
  }
  const uint32_t bit = 1u << static_cast<uint32_t>(dtype);
  if constexpr ((Mask & kOneByteDtypes) != 0) {
    if (bit & kOneByteDtypes) {
      fn(uint8_t{});
      return true;
    }
  }
  if constexpr ((Mask & kTwoByteDtypes) != 0) {
    if (bit & kTwoByteDtypes) {
      fn(uint16_t{});
      return true;
    }
  }
  if constexpr ((Mask & kFourByteDtypes) != 0) {
    if (bit & kFourByteDtypes) {
      fn(uint32_t{});
      return true;
    }
  }
  if constexpr ((Mask & kEightByteDtypes) != 0) {
    if (bit & kEightByteDtypes) {
      fn(uint64_t{});
      return true;
    }
  }
  return false;
}

}  // namespace tailor::native

#define TL_SWITCH_ELEMENT_WORD(dtype, ctx, op_name, W, ...)                                 \
  do {                                                                                      \
    constexpr uint32_t tl_word_mask_ = TL_SELECTED_DTYPE_MASK(op_name);                     \
    const ::tailor::ScalarType tl_word_dtype_ = (dtype);                                    \
    const bool tl_word_ran_ = ::tailor::native::dispatch_element_word<tl_word_mask_>(       \
        tl_word_dtype_, [&](auto tl_word_) {                                                \
          using W = decltype(tl_word_);                                                     \
          (__VA_ARGS__)();                                                                  \
        });                                                                                 \
    if (!tl_word_ran_) {                                                                    \
      ::tailor::internal::report_dtype_unselected(ctx, TL_INTERNAL_OP_NAME(op_name),        \
                                                  tl_word_dtype_);                          \
    }                                                                                       \
  } while (0)

/// Fails the call (and returns `retval`) when `dtype` is not selected for `op_name`.
#define TL_KERNEL_CHECK_DTYPE_SELECTED(ctx, op_name, dtype, retval)                          \
  do {                                                                                      \
    constexpr uint32_t tl_check_mask_ = TL_SELECTED_DTYPE_MASK(op_name);                    \
    const ::tailor::ScalarType tl_check_dtype_ = (dtype);                                   \
    if (!::tailor::native::dtype_in_mask(tl_check_mask_, tl_check_dtype_)) {                \
      ::tailor::internal::report_dtype_unselected(ctx, TL_INTERNAL_OP_NAME(op_name),        \
                                                  tl_check_dtype_);                         \
      return retval;                                                                        \
    }                                                                                       \
  } while (0)
