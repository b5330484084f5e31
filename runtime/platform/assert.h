// TL_DCHECK: internal invariants, checked in debug builds only (NDEBUG removes them).
// Not for anything a program file controls: those are checked at load and return Error.
#pragma once

#include "runtime/platform/log.h"

#ifdef NDEBUG
#define TL_DCHECK(cond) ((void)sizeof(!(cond)))
#else
#define TL_DCHECK(cond)                                       \
  do {                                                        \
    if (!(cond)) {                                            \
      TL_LOG(Fatal, "internal check failed: %s", #cond);      \
      tl_pal_abort();                                         \
    }                                                         \
  } while (0)
#endif
