// Which dtypes each kernel may instantiate, from the generated selected_dtypes.h.
//
// selected_dtypes.h (on the include path, generated into gen/) either defines
// `TL_SELECT_ALL_DTYPES 1`, or defines
//   namespace tailor::gen {
//   inline constexpr DtypeSelection kSelectedDtypes[] = {{"add.out", mask}, ...};
//   }
// with op names spelled as in the kernel manifest ("add.out" for aten ops, fully
// qualified "tailor_prim::mul.int" otherwise) and bit `1u << code` per ScalarType code.
// It is included from here, after DtypeSelection is defined, so it needs no includes.
#pragma once

#include <stdint.h>

#include "runtime/core/scalar_type.h"
#include "runtime/core/string_util.h"

namespace tailor {

/// One row of the generated selection: an op and its dtype mask.
struct DtypeSelection {
  const char* op;
  uint32_t dtypes;
};

}  // namespace tailor

#include "selected_dtypes.h"

namespace tailor {

/// True when kernels of `op` may instantiate dtype `t`. Constant-evaluable, so a
/// TL_SWITCH_* case of an unselected dtype compiles to nothing. An op missing from the
/// selection has no dtype selected.
constexpr bool dtype_selected(const char* op, ScalarType t) {
#if defined(TL_SELECT_ALL_DTYPES) && TL_SELECT_ALL_DTYPES
  (void)op;
  (void)t;
  return true;
#else
  for (const DtypeSelection& s : gen::kSelectedDtypes) {
    if (string_equal(s.op, op)) {
      return (s.dtypes & (1u << static_cast<uint32_t>(t))) != 0;
    }
  }
  return false;
#endif
}

/// Bit `1u << code` for each dtype selected for `op` (a string literal): for kernels
/// that test several dtypes at once (a loader per input dtype, one case per element size).
constexpr uint32_t selected_dtype_mask(const char* op) {
  uint32_t mask = 0;
  for (int code = 0; code < kNumScalarTypeCodes; ++code) {
    if (is_valid_scalar_type(code) && dtype_selected(op, static_cast<ScalarType>(code))) {
      mask |= 1u << code;
    }
  }
  return mask;
}

}  // namespace tailor
