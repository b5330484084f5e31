// Default platform layer for POSIX hosts: stderr logging, CLOCK_MONOTONIC, abort(), the
// CPU level cap from the environment.
// Every definition is weak so an application or port can replace any of them.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/platform/platform.h"

extern "C" {

__attribute__((weak)) void tl_pal_init(void) {}

__attribute__((weak)) void tl_pal_emit_log(tl_pal_log_level_t level, const char* file,
                                           size_t line, const char* message) {
  // Print the file name only: build paths are long and say nothing to a user.
  const char* slash = strrchr(file, '/');
  fprintf(stderr, "[%c %s:%zu] %s\n", static_cast<char>(level), slash ? slash + 1 : file,
          line, message);
}

__attribute__((weak)) uint64_t tl_pal_current_ticks(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Ticks are nanoseconds here.
__attribute__((weak)) uint64_t tl_pal_ticks_to_ns(uint64_t ticks) { return ticks; }

__attribute__((weak)) const char* tl_pal_cpu_level_cap(void) { return getenv("TL_CPU_LEVEL"); }

__attribute__((weak)) void tl_pal_abort(void) { abort(); }

}  // extern "C"
