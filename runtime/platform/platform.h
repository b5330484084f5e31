// Platform abstraction layer: the few services the runtime needs from its host.
//
// Every function is declared here and defined weak in runtime/platform/default/posix.cpp.
// A port (or an application that wants its own logging) defines any of them again,
// non-weak, and the linker picks that definition instead.
#pragma once

#include <stddef.h>
#include <stdint.h>

extern "C" {

/// Severity of a log message; the value is the letter printed for it.
typedef enum {
  TL_PAL_LOG_DEBUG = 'D',
  TL_PAL_LOG_INFO = 'I',
  TL_PAL_LOG_ERROR = 'E',
  TL_PAL_LOG_FATAL = 'F',
} tl_pal_log_level_t;

/// Prepares the platform (clocks, log sink). Called by the runtime before it logs;
/// must be idempotent and cheap on the second call.
void tl_pal_init(void);

/// Writes one formatted, NUL-terminated log `message` from `file`:`line`. The message
/// has no trailing newline and is only valid during the call.
void tl_pal_emit_log(tl_pal_log_level_t level, const char* file, size_t line,
                     const char* message);

/// A monotonic tick counter; see tl_pal_ticks_to_ns() for its unit.
uint64_t tl_pal_current_ticks(void);

/// Converts a tick count from tl_pal_current_ticks() to nanoseconds.
uint64_t tl_pal_ticks_to_ns(uint64_t ticks);

/// The highest CPU instruction-set level optimized kernels may use, by name
/// ("baseline", "avx2", "avx512"; see runtime/kernel/cpu_level.h), or NULL for the best
/// the CPU has. The default returns the TL_CPU_LEVEL environment variable.
const char* tl_pal_cpu_level_cap(void);

/// Stops the program after an unrecoverable error. Never returns.
[[noreturn]] void tl_pal_abort(void);

}  // extern "C"
