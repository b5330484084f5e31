// Which dtypes each kernel may instantiate, from the generated selected_dtypes.h.
//
// selected_dtypes.h (on the include path, generated into gen/) either defines
// `TL_SELECT_ALL_DTYPES 1`, or defines
//   namespace tailor::gen {
//   inline constexpr DtypeSelection kSelectedDtypes[] = {{"portable", "add.out", mask}, ...};
//   }
// one row per chosen kernel: its library, the op spelled as in the kernel manifest
// ("add.out" for aten ops, fully qualified "tailor_prim::mul.int" otherwise) and bit
// `1u << code` per ScalarType code the resolver chose that kernel for. It is included
// from here, after DtypeSelection is defined, so it needs no includes.
//
// Kernels name their library through TL_KERNEL_LIBRARY, which the kernel shard
// (templates/kernel_shard.cpp.j2) #defines around each kernel source it includes. The
// macros below read it where they are expanded, in the kernel's own code, so this header
// and the util headers (#pragma once) never capture one library's name. A selective
// build that compiles a kernel source without TL_KERNEL_LIBRARY stops with "
// 'TL_KERNEL_LIBRARY' was not declared": define it (-DTL_KERNEL_LIBRARY='"portable"') or
// compile with TL_SELECT_ALL_DTYPES, which needs no library.
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

#include "selected_dtypes.h"

namespace tailor {

/// Bit `1u << code` for each dtype selected for the kernel of `op` (a string literal) in
/// `library`: for kernels that test several dtypes at once (a loader per input dtype, one
/// case per element size). Kernels call it through TL_SELECTED_DTYPE_MASK(op).
constexpr uint32_t selected_dtype_mask(const char* library, const char* op) {
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

/// True when the kernel of `op` in kernel library `library` may instantiate dtype `t`.
/// Constant-evaluable, so a TL_SWITCH_* case of an unselected dtype compiles to nothing.
/// An (library, op) missing from the selection has no dtype selected.
constexpr bool dtype_selected(const char* library, const char* op, ScalarType t) {
  return (selected_dtype_mask(library, op) & (1u << static_cast<uint32_t>(t))) != 0;
}

}  // namespace tailor

// The including kernel's library, read where a macro below (or TL_SWITCH_*) is expanded.
// select=all needs none, so kernels compiled outside a shard (benchmarks, the freestanding
// check, the eager extension) build with TL_SELECT_ALL_DTYPES alone.
#if defined(TL_SELECT_ALL_DTYPES) && TL_SELECT_ALL_DTYPES
#define TL_INTERNAL_KERNEL_LIBRARY ""
#else
#define TL_INTERNAL_KERNEL_LIBRARY TL_KERNEL_LIBRARY
#endif

/// The dtypes selected for `op` (a string literal) in the including kernel's library, as
/// a constant: `constexpr uint32_t kMask = TL_SELECTED_DTYPE_MASK("add.out");`.
#define TL_SELECTED_DTYPE_MASK(op) ::tailor::selected_dtype_mask(TL_INTERNAL_KERNEL_LIBRARY, op)
