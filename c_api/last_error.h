// The C API's per-thread error message: what the last failed call says, with the
// runtime's own error log lines of that call (captured by log_sink.cpp).
#pragma once

#include "c_api/tailor.h"
#include "runtime/core/error.h"

namespace tailor::c_api {

/// Starts a public call on this thread: forgets the last message and captured log.
void begin_call();

/// Appends a runtime error log line to what this call has logged so far.
void capture_log(const char* message);

/// Sets this thread's message to "<printf of fmt> (<ErrorName>): <captured log>" and
/// returns `error` as a tl_status.
tl_status fail(Error error, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/// This thread's message ("" when the last call succeeded).
const char* last_error();

}  // namespace tailor::c_api
