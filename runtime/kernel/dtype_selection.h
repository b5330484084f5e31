// Which dtypes each kernel may instantiate: the rows of its own kernel unit, or the
// build's generated selected_dtypes.h.
//
// A kernel unit (templates/kernel_unit.cpp.j2, one per kernel source) #defines either
// `TL_SELECT_ALL_DTYPES 1` or TL_KERNEL_DTYPES, the rows of its source's kernels:
//   {"portable", "add.out", mask}, ...
// each a library, the op spelled as in the kernel manifest ("add.out" for aten ops, fully
// qualified "tailor_prim::mul.int" otherwise) and bit `1u << code` per ScalarType code the
// resolver chose that kernel for. Without either, selected_dtypes.h (on the include path,
// generated into gen/) defines one or the other for every chosen kernel, as
//   namespace tailor::gen { inline constexpr DtypeSelection kSelectedDtypes[] = {...}; }
// Both are read from here, after DtypeSelection is defined, so they need no includes.
//
// The unit also #defines what the macros below read where they are expanded:
//   TL_KERNEL_LIBRARY  "portable"                       whose rows apply
//   TL_KERNEL_SOURCE   "kernels/portable/op_add.cpp"    the file being compiled
//   TL_KERNEL_OPS      "add.out|add.Scalar_out"         the ops its manifest gives it
// A mask is read only in the kernel source itself (__FILE__ ends with TL_KERNEL_SOURCE)
// and only for an op its manifest declares there; either check failing stops the compile
// at the call, naming it. So a util header cannot bake one includer's mask into inline
// code another unit also emits (the linker keeps one copy of it for both), and an op name
// typo cannot silently select no dtype: the mask a kernel runs with is always the row
// Method load checks calls against. Headers take the mask as a template parameter.
// A selective build that compiles a kernel source outside a unit must define the three
// (tests/runtime/fixtures/test_kernels.cpp does); TL_SELECT_ALL_DTYPES needs none.
#pragma once

#include <stdint.h>

#include "runtime/core/scalar_type.h"
#include "runtime/core/string_util.h"

namespace tailor {

/// One row of the generated selection: a kernel library, an op and its dtype mask.
struct DtypeSelection {
  const char* library;
  const char* op;
  uint32_t dtypes;
};

}  // namespace tailor

#if defined(TL_KERNEL_DTYPES)
namespace tailor::gen {
// Internal linkage (not inline), as the functions reading it below: units hold different
// rows, and one inline entity must be the same in every translation unit.
constexpr DtypeSelection kSelectedDtypes[] = {TL_KERNEL_DTYPES};
}  // namespace tailor::gen
#elif !defined(TL_SELECT_ALL_DTYPES)
#include "selected_dtypes.h"
#endif

namespace tailor {

/// Bit `1u << code` for each dtype selected for the kernel of `op` (a string literal) in
/// `library`. Kernels read it through TL_SELECTED_DTYPE_MASK(op) and the TL_SWITCH_* macros.
static constexpr uint32_t selected_dtype_mask(const char* library, const char* op) {
#if defined(TL_SELECT_ALL_DTYPES) && TL_SELECT_ALL_DTYPES
  (void)library;
  (void)op;
  uint32_t mask = 0;
  for (int code = 0; code < kNumScalarTypeCodes; ++code) {
    if (is_valid_scalar_type(code)) {
      mask |= 1u << code;
    }
  }
  return mask;
#else
  for (const DtypeSelection& s : gen::kSelectedDtypes) {
    if (string_equal(s.library, library) && string_equal(s.op, op)) {
      return s.dtypes;
    }
  }
  return 0;
#endif
}

}  // namespace tailor

namespace tailor::internal {

// Not constexpr: a constant evaluation that reaches one of these fails to compile, and
// the compiler's message names the rule broken.
void dtype_mask_read_outside_its_kernel_source__pass_it_as_a_template_argument();
void op_name_not_declared_for_this_kernel_source_in_its_manifest();

constexpr bool ends_with(const char* s, const char* suffix) {
  const char* end = s;
  const char* suffix_end = suffix;
  while (*end != '\0') ++end;
  while (*suffix_end != '\0') ++suffix_end;
  while (suffix_end != suffix) {
    if (end == s || *--end != *--suffix_end) return false;
  }
  return true;
}

/// Whether `op` is one of the '|'-separated names of `list`.
constexpr bool in_op_list(const char* list, const char* op) {
  while (*list != '\0') {
    const char* o = op;
    while (*o != '\0' && *list == *o) {
      ++list;
      ++o;
    }
    if (*o == '\0' && (*list == '|' || *list == '\0')) return true;
    while (*list != '\0' && *list != '|') ++list;
    if (*list == '|') ++list;
  }
  return false;
}

/// selected_dtype_mask(library, op), read from `file` (the __FILE__ of the expansion).
static constexpr uint32_t kernel_dtype_mask(const char* library, const char* source,
                                            const char* ops, const char* file, const char* op) {
  if (!ends_with(file, source)) {
    dtype_mask_read_outside_its_kernel_source__pass_it_as_a_template_argument();
  }
  if (!in_op_list(ops, op)) {
    op_name_not_declared_for_this_kernel_source_in_its_manifest();
  }
  return selected_dtype_mask(library, op);
}

/// Forces constant evaluation (and so the checks above) wherever the mask is used.
template <uint32_t kMask>
inline constexpr uint32_t kDtypeMask = kMask;

}  // namespace tailor::internal

/// The dtypes selected for `op` (a string literal) in the including kernel's library, as
/// a constant: `constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("add.out");`.
#if defined(TL_SELECT_ALL_DTYPES) && TL_SELECT_ALL_DTYPES
#define TL_SELECTED_DTYPE_MASK(op) \
  ::tailor::internal::kDtypeMask<::tailor::selected_dtype_mask("", op)>
#else
#define TL_SELECTED_DTYPE_MASK(op)                                                         \
  ::tailor::internal::kDtypeMask<::tailor::internal::kernel_dtype_mask(                    \
      TL_KERNEL_LIBRARY, TL_KERNEL_SOURCE, TL_KERNEL_OPS, __FILE__, op)>
#endif
