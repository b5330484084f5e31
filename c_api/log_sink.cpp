// The shared library's log sink: replaces the default platform's (weak) stderr logger,
// so a library prints nothing into its host application. Error lines go into the
// failing call's tl_last_error() message instead; other levels are dropped.
#include "c_api/last_error.h"
#include "runtime/platform/platform.h"

extern "C" void tl_pal_emit_log(tl_pal_log_level_t level, const char* file, size_t line,
                                const char* message) {
  (void)file;
  (void)line;
  if (level == TL_PAL_LOG_ERROR || level == TL_PAL_LOG_FATAL) {
    tailor::c_api::capture_log(message);
  }
}
