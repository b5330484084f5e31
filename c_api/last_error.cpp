#include "c_api/last_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

namespace tailor::c_api {
namespace {

constexpr size_t kMessageBytes = 2048;

// Per thread: calls on different threads never see each other's messages.
thread_local char t_message[kMessageBytes];
thread_local char t_log[kMessageBytes];

// Appends `text` to the NUL-terminated `buffer`, truncating at its end.
void append(char* buffer, const char* text) {
  const size_t used = strlen(buffer);
  snprintf(buffer + used, kMessageBytes - used, "%s", text);
}

}  // namespace

void begin_call() {
  t_message[0] = '\0';
  t_log[0] = '\0';
}

void capture_log(const char* message) {
  if (t_log[0] != '\0') append(t_log, "; ");
  append(t_log, message);
}

tl_status fail(Error error, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(t_message, kMessageBytes, fmt, args);
  va_end(args);
  append(t_message, " (");
  append(t_message, error_name(error));
  append(t_message, ")");
  if (t_log[0] != '\0') {
    append(t_message, ": ");
    append(t_message, t_log);
  }
  return static_cast<tl_status>(error);
}

const char* last_error() { return t_message; }

}  // namespace tailor::c_api
