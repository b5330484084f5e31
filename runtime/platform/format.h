// A small printf-style formatter for log and error messages, so the runtime needs no
// <stdio.h> (a hosted header: Android and bare-metal builds compile it freestanding).
#pragma once

#include <stdarg.h>
#include <stddef.h>

namespace tailor {

/// Formats `fmt` into out[0, size) like vsnprintf: always NUL-terminates (when size > 0),
/// cuts what does not fit, and returns the length the whole text has.
///
/// Conversions: %d %i %u %x %X %c %s %p %% and %f %e %g (all three printed fixed-point);
/// flags '-' and '0', a width, a precision (also `*`), and the length modifiers hh h l
/// ll z j t. Anything else is copied as written.
size_t format_string_v(char* out, size_t size, const char* fmt, va_list args);

size_t format_string(char* out, size_t size, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

}  // namespace tailor
