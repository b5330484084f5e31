#include "runtime/platform/log.h"

#include <stdarg.h>

#include "runtime/platform/format.h"

namespace tailor::internal {

// Long enough for an error naming an operator, its kernel key and the method.
constexpr size_t kMaxLogMessage = 512;

void log_message(LogLevel level, const char* file, int line, const char* fmt, ...) {
  char message[kMaxLogMessage];
  va_list args;
  va_start(args, fmt);
  format_string_v(message, sizeof(message), fmt, args);
  va_end(args);
  tl_pal_init();
  tl_pal_emit_log(static_cast<tl_pal_log_level_t>(level), file,
                  static_cast<size_t>(line), message);
  if (level == LogLevel::Fatal) {
    tl_pal_abort();
  }
}

}  // namespace tailor::internal
